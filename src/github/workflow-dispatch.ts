import type { GitHubClient, RepositoryRef } from "./repository.js";

export type Dispatched = { ok: true; runUrl?: string | undefined } | { ok: false; status: number; message: string };

export interface WorkflowDispatch extends RepositoryRef {
  /** The workflow's file name in .github/workflows. */
  workflow: string;
  /** The branch whose workflow file runs. */
  ref: string;
  inputs: Record<string, string>;
}

/**
 * Starts a workflow run, asking GitHub for the run it made (`return_run_details`), so that the
 * answer to a request links it; a GitHub that does not know the parameter answers 204 without
 * one. A refusal (4xx: no such workflow, no workflow_dispatch trigger, an input it does not
 * declare) is a result the caller reports; anything else is thrown, so that the delivery fails
 * and may be redelivered.
 */
export async function dispatchWorkflow(octokit: GitHubClient, dispatch: WorkflowDispatch): Promise<Dispatched> {
  try {
    const { data } = await octokit.rest.actions.createWorkflowDispatch({
      owner: dispatch.owner,
      repo: dispatch.repo,
      workflow_id: dispatch.workflow,
      ref: dispatch.ref,
      inputs: dispatch.inputs,
      return_run_details: true,
    });
    const runUrl = (data as { html_url?: unknown } | undefined)?.html_url;
    return { ok: true, runUrl: typeof runUrl === "string" ? runUrl : undefined };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status >= 400 && status < 500 && status !== 429)
      return { ok: false, status, message: (error as Error).message };
    throw error;
  }
}

/**
 * A run of the workflow on `ref` that waits for the run in progress (status pending), if there is
 * one: GitHub keeps one waiting run per concurrency group and cancels it for a newer one, so a
 * dispatch now would silently drop the request it holds.
 */
export async function waitingRunOf(octokit: GitHubClient, dispatch: Omit<WorkflowDispatch, "inputs">): Promise<string | undefined> {
  const { data } = await octokit.rest.actions.listWorkflowRuns({
    owner: dispatch.owner,
    repo: dispatch.repo,
    workflow_id: dispatch.workflow,
    branch: dispatch.ref,
    status: "pending",
    per_page: 1,
  });
  return data.workflow_runs[0]?.html_url;
}
