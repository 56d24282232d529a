import type { Probot } from "probot";

import { DeliveryLog, oncePerDelivery } from "./deliveries.js";
import { onCheckRunAction } from "./on-check-run-action.js";
import { onIssueComment } from "./on-issue-comment.js";
import { onIssueLabeled } from "./on-issue-labeled.js";
import { onPullRequestClosed } from "./on-pull-request-closed.js";
import { onPullRequestReview } from "./on-pull-request-review.js";
import { onPush } from "./on-push.js";

/**
 * The rpg-forge GitHub App: a router that checks who asks and dispatches the repository's own
 * rpg-forge workflow. It never checks out or runs repository code; the model key stays in
 * the repository's secrets.
 */
export default function rpgForgeApp(app: Probot): void {
  const deliveries = new DeliveryLog();
  app.on("check_run.requested_action", oncePerDelivery(deliveries, onCheckRunAction));
  app.on("issue_comment.created", oncePerDelivery(deliveries, onIssueComment));
  app.on("issues.labeled", oncePerDelivery(deliveries, onIssueLabeled));
  app.on("pull_request.closed", oncePerDelivery(deliveries, onPullRequestClosed));
  app.on("pull_request_review.submitted", oncePerDelivery(deliveries, onPullRequestReview));
  app.on("push", oncePerDelivery(deliveries, onPush));
}
