import type { Call, Reply } from "./handlers.js";
import { legacyNodeId, type Site } from "./shapes.js";
import type { StandInApp, StoredCheckRun, StoredPull } from "./types.js";

/**
 * Check runs (checks/create, checks/update, checks/list-for-ref, checks/list-annotations), kept in
 * memory and written as the App the request's token belongs to (the caller's). Beyond the request's top-level fields
 * (checked against the REST description by the server), GitHub's own rules are enforced with its
 * 422: output needs title and summary, at most 50 annotations per request (each with path, lines,
 * level and message), at most 3 actions with GitHub's lengths. An update appends its annotations,
 * as on GitHub; none is ever removed.
 */

/** GitHub Actions' App: the owner of check runs made with GITHUB_TOKEN. */
export const GITHUB_ACTIONS_APP: StandInApp = { id: 15368, slug: "github-actions", name: "GitHub Actions" };

interface Parts {
  site: Site;
  now: () => string;
  pulls: StoredPull[];
  integrationJson: (app: StandInApp) => unknown;
}

interface OutputInput {
  title?: string;
  summary?: string;
  text?: string;
  annotations?: Record<string, unknown>[];
}

export function createChecks({ site, now, pulls, integrationJson }: Parts) {
  const checkRuns: StoredCheckRun[] = [];
  let lastId = 3_000_000_000;
  const invalid = (call: Call, message: string): Reply => ({
    status: 422,
    body: { message: `Invalid request.\n\n${message}`, documentation_url: call.operation.docsUrl, status: "422" },
  });

  /** GitHub's rules for output and actions, beyond what the description's top level says; undefined when they hold. */
  function problem(body: Record<string, unknown>): string | undefined {
    const output = body.output as OutputInput | undefined;
    if (output !== undefined) {
      if (typeof output.title !== "string" || typeof output.summary !== "string") return "output needs title and summary";
      if (output.summary.length > 65_535 || (output.text ?? "").length > 65_535)
        return "output summary and text take at most 65535 characters";
      const annotations = output.annotations ?? [];
      if (annotations.length > 50) return `at most 50 annotations per request, got ${annotations.length}`;
      for (const a of annotations) {
        if (typeof a.path !== "string" || !Number.isInteger(a.start_line) || !Number.isInteger(a.end_line) || typeof a.message !== "string")
          return "an annotation needs path, start_line, end_line and message";
        if (!["notice", "warning", "failure"].includes(a.annotation_level as string))
          return "annotation_level is notice, warning or failure";
      }
    }
    const actions = (body.actions ?? []) as { label?: string; identifier?: string; description?: string }[];
    if (actions.length > 3) return "at most 3 actions";
    for (const a of actions) {
      if (!a.label || a.label.length > 20) return "an action's label takes 1 to 20 characters";
      if (!a.identifier || a.identifier.length > 20) return "an action's identifier takes 1 to 20 characters";
      if (!a.description || a.description.length > 40) return "an action's description takes 1 to 40 characters";
    }
    if (body.status === "completed" && body.conclusion === undefined) return "a completed check run needs a conclusion";
    return undefined;
  }

  function apply(run: StoredCheckRun, body: Record<string, unknown>): void {
    if (typeof body.name === "string") run.name = body.name;
    if (typeof body.external_id === "string") run.external_id = body.external_id;
    if (typeof body.conclusion === "string") {
      run.conclusion = body.conclusion;
      run.status = "completed";
    }
    if (typeof body.status === "string") run.status = body.status;
    if (run.status === "completed") run.completed_at ??= now();
    const output = body.output as OutputInput | undefined;
    if (output) {
      run.output = { title: output.title ?? null, summary: output.summary ?? null, text: output.text ?? run.output.text };
      run.annotations.push(...((output.annotations ?? []) as unknown as StoredCheckRun["annotations"]));
    }
    if (Array.isArray(body.actions)) run.actions = body.actions as StoredCheckRun["actions"];
  }

  const checkRunJson = (r: StoredCheckRun) => ({
    id: r.id,
    node_id: r.node_id,
    head_sha: r.head_sha,
    external_id: r.external_id,
    url: `${site.repoApi}/check-runs/${r.id}`,
    html_url: `${site.repoHtml}/runs/${r.id}`,
    details_url: `https://github.com/apps/${r.app.slug}`,
    status: r.status,
    conclusion: r.conclusion,
    started_at: r.started_at,
    completed_at: r.completed_at,
    output: {
      ...r.output,
      annotations_count: r.annotations.length,
      annotations_url: `${site.repoApi}/check-runs/${r.id}/annotations`,
    },
    name: r.name,
    check_suite: { id: 4_000_000_000 + checkRuns.indexOf(r) },
    app: integrationJson(r.app),
    pull_requests: pulls
      .filter((p) => p.state === "open" && p.head.sha === r.head_sha)
      .map((p) => ({
        id: p.id,
        number: p.number,
        url: p.url,
        head: { ref: p.head.ref, sha: p.head.sha, repo: { id: 7_000_001, url: site.repoApi, name: site.repo } },
        base: { ref: p.base.ref, sha: p.base.sha, repo: { id: 7_000_001, url: site.repoApi, name: site.repo } },
      })),
  });
  const byId = (value: string | undefined) => checkRuns.find((r) => r.id === Number(value));

  const handlers: Record<string, (call: Call) => Reply> = {
    "checks/create": (call) => {
      const wrong = problem(call.body);
      if (wrong) return invalid(call, wrong);
      const id = ++lastId;
      const stamp = now();
      const run: StoredCheckRun = {
        id,
        node_id: legacyNodeId("CheckRun", id),
        name: String(call.body.name),
        head_sha: String(call.body.head_sha),
        external_id: "",
        status: "queued",
        conclusion: null,
        started_at: stamp,
        completed_at: null,
        output: { title: null, summary: null, text: null },
        annotations: [],
        actions: [],
        app: call.caller.app,
      };
      apply(run, call.body);
      checkRuns.push(run);
      return { status: 201, body: checkRunJson(run) };
    },

    "checks/update": (call) => {
      const run = byId(call.params.check_run_id);
      if (!run) return { status: 404, body: { message: "Not Found", documentation_url: call.operation.docsUrl, status: "404" } };
      // Only the App that made a check run may change it.
      if (run.app.id !== call.caller.app.id)
        return { status: 403, body: { message: "Invalid app_id", documentation_url: call.operation.docsUrl } };
      const wrong = problem(call.body);
      if (wrong) return invalid(call, wrong);
      apply(run, call.body);
      return { status: 200, body: checkRunJson(run) };
    },

    "checks/list-for-ref": (call) => {
      const { check_name: name, app_id: appId, filter = "latest", status } = call.query;
      // A ref is a sha here; branch names are not resolved.
      let found = checkRuns
        .filter((r) => r.head_sha === call.params.ref)
        .filter((r) => name === undefined || r.name === name)
        .filter((r) => appId === undefined || r.app.id === Number(appId))
        .filter((r) => status === undefined || r.status === status)
        .sort((a, b) => b.id - a.id);
      // latest: the newest check run of each name (and App), as GitHub shows them.
      if (filter === "latest") found = found.filter((r, i) => found.findIndex((o) => o.name === r.name && o.app.id === r.app.id) === i);
      const perPage = Math.min(Number(call.query.per_page ?? 30) || 30, 100);
      const page = Math.max(Number(call.query.page ?? 1) || 1, 1);
      const check_runs = found.slice((page - 1) * perPage, page * perPage).map(checkRunJson);
      return { status: 200, body: { total_count: found.length, check_runs } };
    },

    "checks/list-annotations": (call) => {
      const run = byId(call.params.check_run_id);
      if (!run) return { status: 404, body: { message: "Not Found", documentation_url: call.operation.docsUrl, status: "404" } };
      const perPage = Math.min(Number(call.query.per_page ?? 30) || 30, 100);
      const page = Math.max(Number(call.query.page ?? 1) || 1, 1);
      const annotations = run.annotations.slice((page - 1) * perPage, page * perPage).map((a) => ({
        path: a.path,
        blob_href: `${site.repoHtml}/blob/${run.head_sha}/${a.path}`,
        start_line: a.start_line,
        end_line: a.end_line,
        start_column: a.start_column ?? null,
        end_column: a.end_column ?? null,
        annotation_level: a.annotation_level,
        title: a.title ?? null,
        message: a.message,
        raw_details: a.raw_details ?? null,
      }));
      return { status: 200, body: annotations };
    },
  };

  return { checkRuns, handlers };
}
