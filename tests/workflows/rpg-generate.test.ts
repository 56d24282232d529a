// The workflow template users copy (rpg-generate.yml, the caller) and the reusable workflow it calls (rpg-forge.yml,
// the jobs), read by GitHub's own workflow parser (schema, expression contexts, the job graph) and run on paper with
// GitHub's expression evaluator: the caller's event becomes the callee's inputs and secrets, as the runner passes them,
// and the callee's job conditions then say which jobs that event starts.
import { DISPATCH_INPUT_NAMES } from "../../src/config/dispatch-inputs.js";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import type { FunctionDefinition } from "@actions/expressions/funcs/info";
import { truthy } from "@actions/expressions/result";
import type { WorkflowTemplate } from "@actions/workflow-parser";
import type { TemplateToken } from "@actions/workflow-parser/templates/tokens/template-token";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../helpers/temp-dir.js";

import {
  NoOperationTraceWriter,
  convertWorkflowTemplate,
  isBasicExpression,
  isBoolean,
  isMapping,
  isNumber,
  isSequence,
  isString,
  parseWorkflow,
} from "@actions/workflow-parser";

const CALLER_FILE = fileURLToPath(new URL("../../.github/workflows/rpg-generate.yml", import.meta.url));
const CALLEE_FILE = fileURLToPath(new URL("../../.github/workflows/rpg-forge.yml", import.meta.url));
const ACTION = "rpg-forge/rpg-forge@v1";
const REUSABLE = "rpg-forge/rpg-forge/.github/workflows/rpg-forge.yml@v1";
const GENERATING_MODES = ["generate", "retry", "revise"];
const SECRETS = { OPENAI_API_KEY: "sk-test", RPG_FORGE_APP_PRIVATE_KEY: "pem-test", SOMETHING_ELSE: "not-ours" };

/** The parsed YAML as plain data; an expression stays its source text, `${{ }}` included. */
type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };
type PlainMap = { [key: string]: Plain };

function toPlain(token: TemplateToken): Plain {
  if (isMapping(token)) return Object.fromEntries([...token].map(({ key, value }) => [key.toString(), toPlain(value)]));
  if (isSequence(token)) return [...token].map(toPlain);
  if (isBasicExpression(token)) return token.source ?? `\${{ ${token.expression} }}`;
  if (isString(token) || isNumber(token) || isBoolean(token)) return token.value;
  return null;
}

const asMap = (value: Plain | undefined): PlainMap => {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return value;
  throw new Error(`expected a mapping, got ${JSON.stringify(value)}`);
};
const asList = (value: Plain | undefined): Plain[] => (Array.isArray(value) ? value : []);

interface Parsed {
  errors: string[];
  root?: TemplateToken;
  template?: WorkflowTemplate;
}

async function parse(content: string, name: string): Promise<Parsed> {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const errors = () => parsed.context.errors.getErrors().map((e) => e.message);
  if (parsed.value === undefined) return { errors: errors() }; // not even YAML
  // The conversion adds what only the whole workflow shows (a need naming no job, a cycle) to the same list.
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return { errors: errors(), root: parsed.value, template };
}

interface Status {
  success: boolean;
  failure: boolean;
  cancelled: boolean;
}
const STEP_STATUS: Status = { success: true, failure: false, cancelled: false };
const CONTEXTS = ["github", "inputs", "vars", "secrets", "needs", "matrix", "env", "steps"];

function evaluate(expression: string, contexts: object, status: Status = STEP_STATUS): data.ExpressionData {
  const flag = (name: string, value: boolean): FunctionDefinition => ({
    name,
    minArgs: 0,
    maxArgs: 0,
    call: () => new data.BooleanData(value),
  });
  const functions = [
    flag("always", true),
    flag("success", status.success),
    flag("failure", status.failure),
    flag("cancelled", status.cancelled),
  ];
  const tree = new Parser(new Lexer(expression).lex().tokens, CONTEXTS, functions).parse();
  const context = JSON.parse(JSON.stringify(contexts), data.reviver) as data.Dictionary;
  return new Evaluator(tree, context, new Map(functions.map((f) => [f.name, f]))).evaluate();
}

/** A value as the runner sees it: a lone `${{ }}` keeps its type, anything else is text with the parts filled in. */
function resolve(value: Plain | undefined, contexts: object): unknown {
  if (typeof value !== "string") return value;
  const parts = value.split(/\$\{\{(.*?)\}\}/s);
  const lone = parts.length === 3 && parts[0] === "" && parts[2] === "";
  if (lone) return JSON.parse(JSON.stringify(evaluate(parts[1] ?? "", contexts), data.replacer)) as unknown;
  return parts.map((part, i) => (i % 2 === 0 ? part : evaluate(part, contexts).coerceString())).join("");
}

let caller: PlainMap;
let callee: PlainMap;
/** The reusable workflow's jobs, as the parser orders and converts them. */
let template: WorkflowTemplate;
const callerJobs = (): PlainMap => asMap(caller["jobs"]);
/** The caller's one job, which calls the reusable workflow. */
const call = (): PlainMap => asMap(Object.values(callerJobs())[0]);
const jobs = (): PlainMap => asMap(callee["jobs"]);
const job = (id: string): PlainMap => asMap(jobs()[id]);
const stepsOf = (id: string): PlainMap[] => asList(job(id)["steps"]).map(asMap);
const allSteps = (): Array<[string, PlainMap]> => Object.keys(jobs()).flatMap((id) => stepsOf(id).map((s): [string, PlainMap] => [id, s]));
const actionSteps = () => allSteps().filter(([, s]) => s["uses"] === ACTION);
const calleeInputs = (): PlainMap => asMap(asMap(asMap(callee["on"])["workflow_call"])["inputs"]);
const dispatchInputs = (): PlainMap => asMap(asMap(asMap(caller["on"])["workflow_dispatch"])["inputs"]);

beforeAll(async () => {
  const read = async (file: string, name: string) => {
    const parsed = await parse(await readFile(file, "utf8"), name);
    if (!parsed.root || !parsed.template) throw new Error(parsed.errors.join("\n"));
    return { plain: asMap(toPlain(parsed.root)), template: parsed.template };
  };
  caller = (await read(CALLER_FILE, "rpg-generate.yml")).plain;
  const called = await read(CALLEE_FILE, "rpg-forge.yml");
  callee = called.plain;
  template = called.template;
});

interface Scenario {
  event: "push" | "workflow_dispatch" | "pull_request";
  /** The closed pull request of a pull_request event; `fork` when its branch is another repository's. */
  pullRequest?: { merged: boolean; head: string; base: string; fork?: boolean };
  inputs?: Record<string, string | boolean>;
  vars?: Record<string, string>;
  /** What the plan job's action reports. */
  waves?: string[][];
  /** Jobs whose action fails. */
  failing?: string[];
  /** The run is cancelled (a newer push) once this job is done. */
  cancelAfter?: string;
}

/** The caller's contexts: its event, its dispatch inputs (a dispatch fills every one, with its default where none is given). */
function callerContextsOf(s: Scenario) {
  const defaults = Object.fromEntries(
    Object.entries(dispatchInputs()).map(([name, spec]) => [
      name,
      asMap(spec)["default"] ?? (asMap(spec)["type"] === "boolean" ? false : ""),
    ]),
  );
  const repository = "octo/statkit";
  return {
    github: {
      event_name: s.event,
      repository,
      ref: s.pullRequest ? "refs/pull/7/merge" : "refs/heads/main",
      ref_name: s.pullRequest ? "7/merge" : "main",
      event: s.pullRequest
        ? {
            pull_request: {
              merged: s.pullRequest.merged,
              head: { ref: s.pullRequest.head, repo: { full_name: s.pullRequest.fork ? "someone/statkit" : repository } },
              base: { ref: s.pullRequest.base },
            },
          }
        : {},
    },
    inputs: s.event === "workflow_dispatch" ? { ...defaults, ...s.inputs } : {},
    vars: s.vars ?? {},
    secrets: SECRETS,
  };
}

/**
 * The inputs the reusable workflow gets, as the runner checks them: only declared inputs, each of its type, an input
 * the caller leaves out its default. An expression that comes to nothing (`inputs.x` on a push) is an empty string,
 * which a boolean input refuses: the whole run fails at its start, with no job.
 */
function passedInputs(s: Scenario): Record<string, string | boolean> {
  const declared = calleeInputs();
  const given = asMap(call()["with"] ?? {});
  const contexts = callerContextsOf(s);
  const passed: Record<string, string | boolean> = {};
  for (const [name, spec] of Object.entries(declared)) {
    const type = asMap(spec)["type"];
    const fallback = asMap(spec)["default"] ?? (type === "boolean" ? false : "");
    const value = name in given ? (resolve(given[name], contexts) ?? "") : fallback;
    if (typeof value !== (type === "boolean" ? "boolean" : "string"))
      throw new Error(`input ${name} is ${String(type)}, but gets ${JSON.stringify(value)}: the run would fail at its start`);
    passed[name] = value as string | boolean;
  }
  for (const name of Object.keys(given)) if (!(name in declared)) throw new Error(`input ${name} is not declared by the reusable workflow`);
  return passed;
}

/** The secrets the reusable workflow gets: those the caller names, no others. */
function passedSecrets(s: Scenario): Record<string, unknown> {
  const contexts = callerContextsOf(s);
  return Object.fromEntries(Object.entries(asMap(call()["secrets"])).map(([name, value]) => [name, resolve(value, contexts) ?? ""]));
}

/** The reusable workflow's contexts: the caller's `github` and `vars`, and the inputs and secrets the caller passes. */
function contextsOf(s: Scenario) {
  const { github, vars } = callerContextsOf(s);
  return { github, vars, inputs: passedInputs(s), secrets: passedSecrets(s) };
}

interface JobRun {
  result: "success" | "failure" | "skipped";
  legs?: unknown;
  outputs?: Record<string, unknown>;
}

/** Which of the reusable workflow's jobs run for a scenario, as the runner decides: each job's `if` (with the implicit success()), in order. */
function simulate(s: Scenario): Record<string, JobRun> {
  const runs: Record<string, JobRun> = {};
  let cancelled = false;
  for (const j of template.jobs) {
    const id = j.id.value;
    const needs = Object.fromEntries(
      (j.needs ?? []).map((n) => {
        const done = runs[n.value];
        if (!done) throw new Error(`${id} needs ${n.value}, which comes later in the file`);
        return [n.value, { result: done.result, outputs: done.outputs ?? {} }];
      }),
    );
    const results = Object.values(needs).map((n) => n.result);
    const status = { success: !cancelled && results.every((r) => r === "success"), failure: results.includes("failure"), cancelled };
    const contexts = { ...contextsOf(s), needs };
    if (!truthy(evaluate(j.if.expression, contexts, status))) {
      runs[id] = { result: "skipped" };
      continue;
    }
    const spec = job(id);
    const matrix = spec["strategy"] === undefined ? undefined : asMap(asMap(spec["strategy"])["matrix"]);
    const waves = s.waves ?? [];
    // The plan job's steps: the action's outputs, and its `rest` step (run for real in a test below).
    const steps = {
      plan: { outputs: { waves: JSON.stringify(waves), "wave-count": String(waves.length) } },
      rest: { outputs: { subgraphs: JSON.stringify([waves.slice(4).flat().join(" ")]) } },
    };
    const outputs = Object.fromEntries(
      Object.entries(asMap(spec["outputs"] ?? {})).map(([k, v]) => [k, resolve(v, { ...contexts, steps })]),
    );
    runs[id] = { result: s.failing?.includes(id) ? "failure" : "success", legs: resolve(matrix?.["subgraph"], contexts), outputs };
    if (s.cancelAfter === id) cancelled = true;
  }
  return runs;
}

function hasJq(): boolean {
  try {
    execFileSync("jq", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const ran = (runs: Record<string, JobRun>) => Object.keys(runs).filter((id) => runs[id]?.result !== "skipped");

/** Where a workflow mentions a secret: the dotted path of every value that reads `secrets.`. */
function secretPlaces(workflow: PlainMap): string[] {
  const places: string[] = [];
  const walk = (value: Plain, path: string[]): void => {
    if (typeof value === "string" && /secrets\./i.test(value)) places.push(path.join("."));
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, String(i)]));
    else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  walk(workflow, []);
  return places;
}

describe("rpg-generate.yml and rpg-forge.yml, read by GitHub's workflow parser", () => {
  it.each([
    ["rpg-generate.yml", CALLER_FILE],
    ["rpg-forge.yml", CALLEE_FILE],
  ])("%s parses and validates without a single error", async (name, file) => {
    const parsed = await parse(await readFile(file, "utf8"), name);
    expect(parsed.errors).toEqual([]);
    expect(parsed.template?.errors).toBeUndefined();
  });

  // A valid one-job workflow, then the job or key that breaks it.
  const withJob = (body: string) => `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n${body}`;
  it.each([
    {
      what: "an unknown key",
      content: withJob("  b:\n    runs-on: ubuntu-latest\n    bogus: 1\n    steps:\n      - run: echo\n"),
      error: /Unexpected value 'bogus'/,
    },
    {
      what: "a job without runs-on",
      content: withJob("  b:\n    steps:\n      - run: echo\n"),
      error: /Required property is missing: runs-on/,
    },
    {
      what: "a need naming no job",
      content: withJob("  b:\n    needs: [a, plan]\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n"),
      error: /depends on unknown job 'plan'/,
    },
    {
      what: "a secret in a job's if",
      content: withJob("  b:\n    if: secrets.X != ''\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n"),
      error: /Unrecognized named-value: 'secrets'/,
    },
    {
      what: "a permission level that does not exist",
      content: `permissions:\n  contents: writ\n${withJob("")}`,
      error: /Unexpected value 'writ'/,
    },
  ])("reports $what, so the check above can fail", async ({ content, error }) => {
    const parsed = await parse(content, "broken.yml");
    expect(parsed.errors.join("\n")).toMatch(error);
  });
});

describe("triggers", () => {
  it("runs on a push that changes an rpg.json, not on rpg-forge's own branches or its copy of the graph", () => {
    const push = asMap(asMap(caller["on"])["push"]);
    expect(push["paths"]).toEqual(["**/rpg.json", "!**/docs/rpg.json"]);
    expect(push["branches-ignore"]).toEqual(["rpg/**", "rpg-forge/**", "rpg-work/**"]);
    expect(asMap(asMap(caller["on"])["pull_request"])["types"]).toEqual(["closed"]);
  });

  it("can be dispatched with the action's inputs, mode as a choice, and the matrix switch", () => {
    const inputs = dispatchInputs();
    // Exactly the keys of the one schema the App builds dispatches with and the Action reads (GitHub allows 10).
    expect(Object.keys(inputs).sort()).toEqual([...DISPATCH_INPUT_NAMES].sort());
    expect(DISPATCH_INPUT_NAMES.length).toBeLessThanOrEqual(10);
    expect(inputs["mode"]).toMatchObject({
      type: "choice",
      options: ["generate", "retry", "revise", "plan", "restack"],
      default: "generate",
    });
    expect(inputs["matrix"]).toMatchObject({ type: "boolean", default: false });
  });

  it("is nothing but triggers, permissions, concurrency and one call of the published reusable workflow", () => {
    expect(Object.keys(caller).sort()).toEqual(["concurrency", "jobs", "name", "on", "permissions"]);
    expect(Object.keys(callerJobs())).toEqual(["rpg-forge"]);
    expect(call()["uses"]).toBe(REUSABLE);
    expect(asMap(callee["on"])).toEqual({ workflow_call: expect.anything() as unknown });
  });
});

describe("the call: inputs and secrets", () => {
  it("declares every dispatch key as an input of the reusable workflow, a string but for the boolean matrix", () => {
    const declared = calleeInputs();
    expect(Object.keys(declared).sort()).toEqual([...DISPATCH_INPUT_NAMES].sort());
    for (const [name, spec] of Object.entries(declared)) {
      expect(asMap(spec)["type"], name).toBe(name === "matrix" ? "boolean" : "string");
      expect(asMap(spec)["required"] ?? false, name).toBe(false);
    }
  });

  it("passes every dispatch input through, as given", () => {
    const given = {
      "rpg-path": "lib/rpg.json",
      mode: "revise",
      nodes: "core.mean core.median",
      subgraphs: "core",
      model: "gpt-x",
      "max-iterations": "3",
      "base-branch": "trunk",
      issue: "12",
      request: "review-34",
      matrix: true,
    };
    expect(Object.keys(given).sort()).toEqual([...DISPATCH_INPUT_NAMES].sort());
    expect(Object.keys(asMap(call()["with"])).sort()).toEqual([...DISPATCH_INPUT_NAMES].sort());
    expect(passedInputs({ event: "workflow_dispatch", inputs: given })).toEqual(given);
    expect(passedInputs({ event: "workflow_dispatch", inputs: { matrix: false } })).toMatchObject({ mode: "generate", matrix: false });
  });

  it.each<Scenario>([{ event: "push" }, { event: "pull_request", pullRequest: { merged: true, head: "rpg/statkit/core", base: "main" } }])(
    "passes empty inputs, and false for matrix, where there was no dispatch ($event): the call is valid",
    (s) => {
      const passed = passedInputs(s);
      expect(passed["matrix"]).toBe(false);
      for (const name of DISPATCH_INPUT_NAMES.filter((n) => n !== "matrix")) expect(passed[name], name).toBe("");
    },
  );

  it("passes the model key and the App's key by name, never `secrets: inherit`, and no other secret", () => {
    const secrets = call()["secrets"];
    expect(secrets).not.toBe("inherit");
    expect(secrets).toEqual({
      OPENAI_API_KEY: "${{ secrets.OPENAI_API_KEY }}",
      RPG_FORGE_APP_PRIVATE_KEY: "${{ secrets.RPG_FORGE_APP_PRIVATE_KEY }}",
    });
    const declared = asMap(asMap(asMap(callee["on"])["workflow_call"])["secrets"]);
    expect(Object.keys(declared).sort()).toEqual(Object.keys(asMap(secrets)).sort());
    // Neither is required: plan and restack need no model, and the App is optional.
    for (const [name, spec] of Object.entries(declared)) expect(asMap(spec)["required"], name).toBe(false);
    expect(passedSecrets({ event: "push" })).toEqual({ OPENAI_API_KEY: "sk-test", RPG_FORGE_APP_PRIVATE_KEY: "pem-test" });
  });
});

describe("permissions and secrets", () => {
  const LEVEL: Record<string, number> = { none: 0, read: 1, write: 2 };
  const THREE = { contents: "write", "pull-requests": "write", issues: "write" };

  it("asks for contents, pull-requests and issues write, nothing else, in both files, and no job widens it", () => {
    expect(caller["permissions"]).toEqual(THREE);
    // Declared by the reusable workflow too: its jobs would otherwise get the repository's default token permissions.
    expect(callee["permissions"]).toEqual(THREE);
    for (const id of Object.keys(callerJobs())) expect(callerJobs()[id] && asMap(callerJobs()[id])["permissions"], id).toBeUndefined();
    for (const id of Object.keys(jobs())) expect(job(id)["permissions"], id).toBeUndefined();
  });

  it("grants in the caller everything the reusable workflow asks for, which can only keep or narrow it", () => {
    const granted = asMap(asMap(call())["permissions"] ?? caller["permissions"]);
    const asked = [callee["permissions"], ...Object.keys(jobs()).map((id) => job(id)["permissions"])].filter((p) => p !== undefined);
    expect(asked.length).toBeGreaterThan(0);
    for (const permissions of asked)
      for (const [scope, level] of Object.entries(asMap(permissions)))
        expect(LEVEL[String(granted[scope] ?? "none")], scope).toBeGreaterThanOrEqual(LEVEL[String(level)] ?? 99);
  });

  it("leaves no credentials behind in any checkout", () => {
    const checkouts = allSteps().filter(([, s]) => String(s["uses"]).startsWith("actions/checkout@"));
    expect(checkouts.length).toBe(Object.keys(jobs()).length);
    // Step inputs reach an action as strings, and the parser keeps them so.
    for (const [id, step] of checkouts) expect(asMap(step["with"])["persist-credentials"], id).toBe("false");
  });

  it("pins every action to a version, and uses the published rpg-forge action, not a local path", () => {
    const uses = allSteps().flatMap(([, s]) => (s["uses"] === undefined ? [] : [String(s["uses"])]));
    for (const ref of uses) expect(ref).toMatch(/^[\w.-]+\/[\w./-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/);
    expect(uses).toContain(ACTION);
    expect(uses.filter((ref) => ref.startsWith("rpg-forge/")).every((ref) => ref === ACTION)).toBe(true);
  });

  it("mentions secrets in the caller only where it passes them", () => {
    expect(secretPlaces(caller).sort()).toEqual([
      "jobs.rpg-forge.secrets.OPENAI_API_KEY",
      "jobs.rpg-forge.secrets.RPG_FORGE_APP_PRIVATE_KEY",
    ]);
  });

  it("puts secrets only in rpg-forge steps, never at workflow or job level: the model key in env, the App's key in its input", () => {
    const places = secretPlaces(callee);
    expect(places.length).toBeGreaterThan(0);
    for (const place of places) expect(place).toMatch(/^jobs\.[\w-]+\.steps\.\d+\.(env\.OPENAI_API_KEY|with\.app-private-key)$/);
    for (const [id, step] of allSteps()) {
      if (asMap(step["env"] ?? {})["OPENAI_API_KEY"] !== undefined) expect(step["uses"], id).toBe(ACTION);
      if (asMap(step["with"] ?? {})["app-private-key"] !== undefined) expect(step["uses"], id).toBe(ACTION);
    }
  });

  it.each(["generate", "retry", "revise", "plan", "restack"])("gives the model key to a step only when it generates (mode %s)", (mode) => {
    const contexts = { ...contextsOf({ event: "workflow_dispatch", inputs: { mode } }), matrix: { subgraph: "core" } };
    for (const [id, step] of actionSteps()) {
      const stepMode = resolve(asMap(step["with"])["mode"], contexts);
      const key = resolve(asMap(step["env"] ?? {})["OPENAI_API_KEY"], contexts) ?? "";
      expect(key, `${id}: mode ${String(stepMode)}`).toBe(GENERATING_MODES.includes(String(stepMode)) ? "sk-test" : "");
    }
  });

  it("hands the App's ID and key, both or neither, to every rpg-forge step that writes, and to no other step", () => {
    const contexts = { ...contextsOf({ event: "workflow_dispatch", vars: { RPG_FORGE_APP_ID: "4242" } }), matrix: { subgraph: "core" } };
    const writing = actionSteps().filter(([id]) => id !== "plan");
    // Every job but plan writes: pushes, pull requests, comments (restack retargets and comments too).
    expect(new Set(writing.map(([id]) => id))).toEqual(new Set(Object.keys(jobs()).filter((id) => id !== "plan")));
    for (const [id, step] of writing) {
      const inputs = asMap(step["with"]);
      expect(resolve(inputs["app-id"], contexts), id).toBe("4242");
      expect(resolve(inputs["app-private-key"], contexts), id).toBe("pem-test");
    }
    // The plan job reads the graph and writes nothing.
    for (const [, step] of actionSteps().filter(([id]) => id === "plan")) {
      expect(asMap(step["with"])).not.toHaveProperty("app-id");
      expect(asMap(step["with"])).not.toHaveProperty("app-private-key");
    }
    for (const [id, step] of allSteps().filter(([, s]) => s["uses"] !== ACTION)) {
      expect(asMap(step["with"] ?? {}), id).not.toHaveProperty("app-private-key");
      expect(JSON.stringify(step), id).not.toMatch(/RPG_FORGE_APP/);
    }
  });

  it("prepares the sandbox before every rpg-forge step that runs generated tests, on a checkout with all branches", () => {
    const testing = ["generate", "wave-1", "wave-2", "wave-3", "wave-4", "wave-rest", "report"];
    for (const id of Object.keys(jobs())) {
      const steps = stepsOf(id);
      const sandbox = steps.findIndex((s) => s["name"] === "Prepare the test sandbox");
      const action = steps.findIndex((s) => s["uses"] === ACTION);
      const checkout = asMap(steps.find((s) => String(s["uses"]).startsWith("actions/checkout@"))?.["with"]);
      if (testing.includes(id)) {
        expect(sandbox, id).toBeGreaterThan(steps.findIndex((s) => String(s["uses"]).startsWith("actions/setup-python@")));
        expect(sandbox, id).toBeLessThan(action);
        expect(String(steps[sandbox]?.["run"]), id).toContain("bwrap --unshare-all --ro-bind / / true");
        expect(String(steps[sandbox]?.["run"]), id).toContain("kernel.apparmor_restrict_unprivileged_userns=0");
      } else expect(sandbox, id).toBe(-1);
      // All branches (a run builds on earlier runs' branches), but for the plan, which only reads the graph.
      expect(checkout["fetch-depth"], id).toBe(id === "plan" ? undefined : "0");
    }
  });
});

describe("concurrency", () => {
  const group = (s: Scenario) => resolve(asMap(caller["concurrency"])["group"], callerContextsOf(s));

  it("puts runs of one ref and graph in one group; a newer push cancels the older run, a dispatched request waits for it", () => {
    const concurrency = asMap(caller["concurrency"]);
    const cancels = (s: Scenario) => resolve(concurrency["cancel-in-progress"], callerContextsOf(s));
    expect(cancels({ event: "push" })).toBe(true);
    // A retry must not cancel the generate it would retry.
    for (const mode of ["generate", "retry", "revise", "plan", "restack"])
      expect(cancels({ event: "workflow_dispatch", inputs: { mode } }), mode).toBe(false);
    expect(group({ event: "push" })).toBe("rpg-forge-refs/heads/main-rpg.json");
    expect(group({ event: "push", vars: { RPG_FORGE_RPG_PATH: "graphs/app/rpg.json" } })).toBe(
      "rpg-forge-refs/heads/main-graphs/app/rpg.json",
    );
    expect(group({ event: "workflow_dispatch", inputs: { "rpg-path": "lib/rpg.json" } })).toBe("rpg-forge-refs/heads/main-lib/rpg.json");
  });

  it("keeps a push, a generate, a retry and a revise of one graph in the same group, so they never run at once", () => {
    const groups = new Set([
      group({ event: "push" }),
      ...["generate", "retry", "revise"].map((mode) => group({ event: "workflow_dispatch", inputs: { mode, "rpg-path": "rpg.json" } })),
    ]);
    expect(groups.size).toBe(1);
  });

  it("holds the group in the caller only: the same group in the reusable workflow would cancel its caller", () => {
    expect(callee["concurrency"]).toBeUndefined();
    for (const id of Object.keys(jobs())) expect(job(id)["concurrency"], id).toBeUndefined();
    expect(call()["concurrency"]).toBeUndefined();
  });

  it.each<Scenario>([
    { event: "push" },
    { event: "push", vars: { RPG_FORGE_RPG_PATH: "graphs/app/rpg.json" } },
    { event: "workflow_dispatch", inputs: { "rpg-path": "lib/rpg.json" }, vars: { RPG_FORGE_RPG_PATH: "graphs/app/rpg.json" } },
  ])("runs every rpg-forge step on the graph of the group ($event)", (s) => {
    const path = resolve(asMap(callee["env"])["RPG_PATH"], contextsOf(s));
    expect(group(s)).toBe(`rpg-forge-refs/heads/main-${String(path)}`);
    for (const [id, step] of actionSteps()) expect(asMap(step["with"])["rpg-path"], id).toBe("${{ env.RPG_PATH }}");
  });
});

describe("one job, or a plan and waves of jobs", () => {
  const WAVES = [["core"], ["io", "stats"], ["report"]];
  const MATRIX_JOBS = ["plan", "wave-1", "wave-2", "wave-3", "wave-4", "wave-rest", "report"];

  it("runs the single generate job on a push, and nothing else", () => {
    expect(ran(simulate({ event: "push", waves: WAVES }))).toEqual(["generate"]);
  });

  it.each<[string, Scenario["pullRequest"], string[]]>([
    ["merged into the base", { merged: true, head: "rpg/statkit/validation", base: "main" }, ["restack"]],
    ["closed without merging", { merged: false, head: "rpg/statkit/validation", base: "main" }, []],
    ["a person's, merged", { merged: true, head: "feature/docs", base: "main" }, []],
    ["a fork's rpg/ branch, merged", { merged: true, head: "rpg/statkit/validation", base: "main", fork: true }, []],
  ])("restacks, and only restacks, when a pull request of rpg-forge's is merged: %s", (_what, pullRequest, expected) => {
    for (const vars of [{}, { RPG_FORGE_MATRIX: "true" }] as Record<string, string>[])
      expect(ran(simulate({ event: "pull_request", pullRequest, vars, waves: WAVES }))).toEqual(expected);
  });

  it("restacks the base branch the pull request was merged into, without the model's key", () => {
    const pullRequest = { merged: true, head: "rpg/statkit/validation", base: "trunk" };
    const contexts = contextsOf({ event: "pull_request", pullRequest });
    const [checkout, step] = stepsOf("restack");
    expect(resolve(asMap(checkout!["with"])["ref"], contexts)).toBe("trunk");
    expect(asMap(step!["with"])).toMatchObject({ mode: "restack" });
    expect(resolve(asMap(step!["with"])["base-branch"], contexts)).toBe("trunk");
    expect(step!["env"]).toBeUndefined();
  });

  it.each<Scenario>([
    { event: "push", vars: { RPG_FORGE_MATRIX: "true" } },
    { event: "workflow_dispatch", inputs: { matrix: true } },
  ])("runs the plan, one wave job per wave and the report when matrix is on ($event)", (s) => {
    const runs = simulate({ ...s, waves: WAVES });
    expect(ran(runs)).toEqual(["plan", "wave-1", "wave-2", "wave-3", "report"]);
    expect([runs["wave-1"]?.legs, runs["wave-2"]?.legs, runs["wave-3"]?.legs]).toEqual(WAVES);
  });

  it.each(["retry", "revise", "plan"])("keeps mode %s in the single job even when matrix is on", (mode) => {
    const runs = simulate({ event: "workflow_dispatch", inputs: { matrix: true, mode }, vars: { RPG_FORGE_MATRIX: "true" }, waves: WAVES });
    expect(ran(runs)).toEqual(["generate"]);
  });

  it("chains the wave jobs by needs, each a matrix over its own wave that does not cancel its siblings", () => {
    expect(Object.keys(jobs())).toEqual(["generate", ...MATRIX_JOBS, "restack"]);
    for (let i = 1; i <= 4; i++) {
      const wave = job(`wave-${i}`);
      expect(wave["needs"]).toEqual(i === 1 ? ["plan"] : ["plan", `wave-${i - 1}`]);
      expect(asMap(wave["strategy"])["fail-fast"]).toBe(false);
      expect(asMap(asMap(wave["strategy"])["matrix"])["subgraph"]).toBe(`\${{ fromJSON(needs.plan.outputs.waves)[${i - 1}] }}`);
      const action = stepsOf(`wave-${i}`).find((s) => s["uses"] === ACTION);
      expect(asMap(action?.["with"])).toMatchObject({ mode: "generate", subgraphs: "${{ matrix.subgraph }}" });
      // One definition of the steps, repeated: the waves cannot drift apart.
      expect(stepsOf(`wave-${i}`)).toEqual(stepsOf("wave-1"));
    }
    expect(job("wave-rest")["needs"]).toEqual(["plan", "wave-4"]);
    expect(asMap(asMap(job("wave-rest")["strategy"])["matrix"])["subgraph"]).toBe("${{ fromJSON(needs.plan.outputs.rest) }}");
    expect(stepsOf("wave-rest")).toEqual(stepsOf("wave-1"));
    expect(job("report")["needs"]).toEqual(MATRIX_JOBS.filter((id) => id !== "report"));
  });

  it("runs the waves after the fourth in one more job, and only then", () => {
    const six = [["a"], ["b"], ["c"], ["d"], ["e", "f"], ["g"]];
    const runs = simulate({ event: "workflow_dispatch", inputs: { matrix: true }, waves: six });
    expect(ran(runs)).toEqual(MATRIX_JOBS);
    // One leg: the action runs the subgraphs it is given in dependency order.
    expect(runs["wave-rest"]?.legs).toEqual(["e f g"]);
    const four = six.slice(0, 4);
    expect(ran(simulate({ event: "workflow_dispatch", inputs: { matrix: true }, waves: four }))).not.toContain("wave-rest");
  });

  const tempDir = useTempDirs();
  it.skipIf(!hasJq())("hands wave-rest the subgraphs of waves 5 and later, whatever their ids hold", () => {
    const step = stepsOf("plan").find((s) => s["id"] === "rest");
    const dir = tempDir();
    const waves = JSON.stringify([["a"], ["b"], ["c"], ["d"], ["e", "f"], ["$(touch pwned)"]]);
    const env = { PATH: process.env["PATH"], WAVES: waves, GITHUB_OUTPUT: join(dir, "output") };
    execFileSync("bash", ["-c", String(step?.["run"])], { cwd: dir, env });
    expect(readFileSync(join(dir, "output"), "utf8")).toBe('subgraphs=["e f $(touch pwned)"]\n');
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(asMap(step?.["env"])["WAVES"]).toBe("${{ steps.plan.outputs.waves }}");
    expect(asMap(job("plan")["outputs"])["rest"]).toBe("${{ steps.rest.outputs.subgraphs }}");
  });

  it("goes on with later waves and the report when a wave job failed", () => {
    const runs = simulate({ event: "workflow_dispatch", inputs: { matrix: true }, waves: WAVES, failing: ["wave-1"] });
    expect(ran(runs)).toEqual(["plan", "wave-1", "wave-2", "wave-3", "report"]);
  });

  it("reports nothing for a run a newer push cancelled, nor starts more waves", () => {
    const runs = simulate({ event: "push", vars: { RPG_FORGE_MATRIX: "true" }, waves: WAVES, cancelAfter: "wave-1" });
    expect(ran(runs)).toEqual(["plan", "wave-1"]);
  });

  it("skips the waves but still reports when the plan failed", () => {
    const runs = simulate({ event: "push", vars: { RPG_FORGE_MATRIX: "true" }, waves: WAVES, failing: ["plan"] });
    expect(ran(runs)).toEqual(["plan", "report"]);
  });
});
