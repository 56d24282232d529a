import type { Context } from "probot";

import { MARKER_PREFIX, commentMarker, upsertComment } from "../github/comments.js";
import { ROLES, type AppConfig, type Role } from "./config.js";
import { renderRefusal } from "./replies.js";
import type { Target } from "./target.js";

/**
 * Why a comment can never be a request, or undefined when it may be one. Checked before any
 * API call: the App must not answer itself, another bot, or a quote of its own comments.
 */
export function ignoredComment(
  comment: { body: string; performed_via_github_app?: unknown },
  sender: { type: string },
): string | undefined {
  if (sender.type === "Bot") return "the sender is a bot";
  // Any App's comment, ours included (ours, written with a user's token, show the user as author).
  if (comment.performed_via_github_app) return "the comment was made by a GitHub App";
  if (comment.body.trimStart().startsWith(MARKER_PREFIX)) return "the comment is one of rpg-forge's own";
  return undefined;
}

/**
 * Whether `login` holds at least `required` on the repository, by GitHub's collaborator
 * permission (never the event's author_association, which says nothing of a team's access).
 */
export async function hasAccess(context: Context, login: string, required: Role): Promise<boolean> {
  let role: string;
  try {
    const { data } = await context.octokit.rest.repos.getCollaboratorPermissionLevel(context.repo({ username: login }));
    // role_name knows triage and maintain; a custom role's name is not ours, so its base permission decides.
    role = ROLES.includes(data.role_name as Role) ? data.role_name : data.permission;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return false; // not a collaborator, or not a user
    throw error;
  }
  return ROLES.indexOf(role as Role) >= ROLES.indexOf(required);
}

/** One polite refusal per person on an issue or pull request, found again by its marker and never repeated. */
export async function refuse(context: Context, target: Target, login: string, required: AppConfig["permission"]): Promise<void> {
  const where = { ...context.repo(), issueNumber: target.number };
  await upsertComment(context.octokit, where, commentMarker("refused", login), renderRefusal(login, required));
}
