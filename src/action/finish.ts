import * as core from "@actions/core";
import type { Checkpoint } from "../engine/checkpoint.js";
import { commentMarker, upsertComment } from "../github/comments.js";
import type { PublishedPullRequest } from "../github/publish.js";
import { createOctokit } from "../github/repository.js";
import type { Plan } from "../plan/plan.js";
import { redactSecrets } from "../redact.js";
import { COMMENT_LIMIT, fitToLimit } from "../report/fit-limit.js";
import { withoutRunDetails } from "../report/generation-report.js";
import { code } from "../report/markdown.js";
import type { ActionContext } from "./context.js";
import type { ActionInputs } from "./inputs.js";
import { pullRequestTable } from "./summaries.js";

export interface FinishedRun {
  plan: Plan;
  rpgPath: string;
  checkpoint: Checkpoint;
  prs: PublishedPullRequest[];
  /** docs/generation_report.md; the issue's comment leaves out its run details, the job summary shows all of it. */
  report: string;
  runId: string;
  /** The run branch, when this job pushed it. */
  branch: string | undefined;
  /** Whether this job speaks for the whole run (false for a matrix wave job, which holds one part). */
  whole: boolean;
}

/** Outputs, the job summary and the report on the `issue` input: the same for a run and for matrix mode's report job. */
export async function finish(inputs: ActionInputs, context: ActionContext, run: FinishedRun): Promise<void> {
  const leaves = Object.values(run.checkpoint.nodes).filter((e) => e.node_type !== "composite");
  const count = (status: string): number => leaves.filter((e) => e.status === status).length;
  const [passed, failed, skipped] = [count("passed"), count("failed"), count("skipped")];
  const closed = run.prs.filter((pr) => pr.closed);
  const closedNote =
    closed.length === 0
      ? ""
      : `Pull requests closed by a person stay closed; their branches were still updated: ${closed.map((pr) => `#${pr.number} (${code(pr.subgraphId)})`).join(", ")}.\n\n`;
  // Parallel wave jobs would race on one comment with partial counts; the report job writes it.
  if (run.whole && inputs.githubToken && inputs.issue !== undefined) {
    const marker = commentMarker("run-report", run.rpgPath);
    // Nothing that changes on every run (run id, timings, "new"), so a rerun that changes nothing leaves it as it is.
    const heading = `### rpg-forge: ${passed} of ${leaves.length} nodes pass (${code(run.rpgPath)})\n\n`;
    const body = heading + closedNote + pullRequestTable(run.prs, run.plan, { markNew: false }) + withoutRunDetails(run.report);
    await upsertComment(
      createOctokit(inputs.githubToken, context.apiUrl),
      { ...context.repository, issueNumber: inputs.issue },
      marker,
      fitToLimit(body, COMMENT_LIMIT - marker.length - 1),
    );
  }
  const open = run.prs.filter((pr) => !pr.closed);
  core.setOutput(
    "pull-requests",
    JSON.stringify(Object.fromEntries(open.map((pr) => [pr.subgraphId, { number: pr.number, url: pr.url }]))),
  );
  core.setOutput("passed", passed);
  core.setOutput("failed", failed);
  core.setOutput("skipped", skipped);
  if (run.branch) core.setOutput("branch", run.branch);
  // What a user loses without the App's credentials, said where they look after a run.
  const asToken =
    run.prs.length > 0 && inputs.appId === ""
      ? "_Written with GITHUB_TOKEN, so the pull requests have no rpg-forge check runs and no **Retry failed** button, and your CI does not run on them (GITHUB_TOKEN starts no other workflow) until you push to them. Pass the rpg-forge App's `app-id` and `app-private-key` (as secrets) for both._\n\n"
      : "";
  // Anyone who can read the repository can read the job summary; the report quotes generated code's output.
  await core.summary
    .addRaw(redactSecrets(closedNote + asToken + pullRequestTable(run.prs, run.plan)))
    .addRaw(redactSecrets(run.report))
    .write();
  core.info(
    `run ${run.runId}: ${passed} passed, ${failed} failed, ${skipped} skipped of ${leaves.length} nodes; ${open.length} open pull request(s)`,
  );
}
