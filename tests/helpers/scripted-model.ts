import { generate, type GenerateOptions, type GenerateResult } from "../../src/engine/generate.js";
import { createOpenAiProvider } from "../../src/llm/openai-provider.js";
import { committedReport } from "../../src/report/generation-report.js";
import { parseRpgText } from "../../src/rpg/load.js";
import { errorReply, startFakeOpenAi, type FakeOpenAi, type ReceivedRequest } from "./fake-openai-server.js";
import { rpgDoc, text } from "./rpg.js";

/** node id → request kind → the replies to its 1st, 2nd, ... request of that kind (a string is sent as is). */
export type Scripts = Record<string, Record<string, unknown[]>>;

/** The request kinds by the schema name each request's structured output carries. */
export const KINDS: Record<string, string> = {
  rpg_forge_tests: "tests",
  rpg_forge_implementation: "implementation",
  rpg_forge_fix: "fix",
  rpg_forge_diagnosis: "diagnosis",
  rpg_forge_integration_tests: "integration_tests",
  rpg_forge_review: "review",
};

/** The node a request is about, as its prompt names it (a subgraph's id for its integration tests). */
export function nodeOf(body: Record<string, unknown>): string {
  const messages = body.messages as { content: string }[];
  return /"id": "([^"]+)"/.exec(messages[1]!.content)![1]!;
}

export const kindOf = (body: Record<string, unknown>): string =>
  KINDS[(body.response_format as { json_schema: { name: string } }).json_schema.name]!;

export interface ScriptedModel extends FakeOpenAi {
  /** The requests about `node`, of `kind` when given. */
  requestsOf(node: string, kind?: string): ReceivedRequest[];
}

const TOOL_CALLS = Symbol("tool calls");

/** A scripted reply that calls tools instead of answering, as the API sends such a reply. */
export function callTools(...calls: { name: string; arguments: Record<string, unknown> | string }[]): Record<symbol, unknown> {
  return {
    [TOOL_CALLS]: calls.map((call, i) => ({
      id: `call_${i + 1}`,
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    })),
  };
}

/**
 * A local OpenAI-compatible server answering each node's requests from `scripts`, and 400 where the script ends.
 * `refuseTools`: a request that offers tools gets the 400 an endpoint without tool support sends.
 */
export async function startScriptedModel(scripts: Scripts, options: { refuseTools?: boolean } = {}): Promise<ScriptedModel> {
  const counts = new Map<string, number>();
  const fake = await startFakeOpenAi((body) => {
    if (options.refuseTools && Array.isArray(body.tools))
      return errorReply(400, "tools is not supported by this model", { param: "tools" });
    const node = nodeOf(body);
    const kind = kindOf(body);
    const n = (counts.get(`${node}/${kind}`) ?? 0) + 1;
    counts.set(`${node}/${kind}`, n);
    const reply = scripts[node]?.[kind]?.[n - 1];
    if (reply === undefined)
      return { status: 400, body: { error: { message: `no scripted reply for ${node} ${kind} ${n}`, type: "invalid_request_error" } } };
    if (typeof reply === "object" && reply !== null && TOOL_CALLS in reply)
      return {
        toolCalls: (reply as Record<symbol, { id: string; name: string; arguments: string }[]>)[TOOL_CALLS]!,
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      };
    return {
      content: typeof reply === "string" ? reply : JSON.stringify(reply),
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    };
  });
  const requestsOf = (node: string, kind?: string): ReceivedRequest[] =>
    fake.requests.filter((r) => nodeOf(r.body) === node && (!kind || kindOf(r.body) === kind));
  return Object.assign(fake, { requestsOf });
}

/** `generate` of the leaves `nodes` into `outDir`, asking `model`; `options` add to or override the defaults. */
export async function generateWith(
  model: FakeOpenAi,
  nodes: Record<string, unknown>[],
  outDir: string,
  options: Partial<Omit<GenerateOptions, "renderCommittedReport">> = {},
  edges: Parameters<typeof rpgDoc>[1] = [],
): Promise<GenerateResult> {
  const loaded = parseRpgText(text(rpgDoc(nodes, edges)), "rpg.json");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return generate({
    rpg: loaded.value,
    rpgPath: "rpg.json",
    rpgSha256: "0123456789",
    outDir,
    provider: createOpenAiProvider({ apiKey: "test-key", baseURL: model.url, model: "fake-model", maxRetries: 0 }),
    model: "fake-model",
    mode: "new",
    renderCommittedReport: committedReport,
    // pyright-langserver costs a second of CPU per run; tests that want it say so (Python's parser gives the same answers here).
    languageServer: false,
    // Three more pytest runs a passed node: the tests that measure test strength ask for them (the engine's default is 3).
    mutants: 0,
    ...options,
  });
}

/** A function leaf `def <name>(x)` in src/lab/<file>.py, of the subgraph "lab". */
export function labLeaf(name: string, file = name, deps: string[] = [], docstring = `Compute ${name} of x.`): Record<string, unknown> {
  return {
    id: name,
    name,
    type: "function",
    node_type: "leaf",
    file_path: `src/lab/${file}.py`,
    signature: `def ${name}(x)`,
    docstring,
    dependencies: deps,
    subgraph_id: "lab",
  };
}

/** A tests reply with one test, `test_<name>`, of `name` imported from `lab.<module>`, whose body is `body`. */
export function oneTest(name: string, body: string, module = name): { test_code: string; notes: string } {
  return { test_code: `from lab.${module} import ${name}\n\n\ndef test_${name}():\n    ${body}\n`, notes: "" };
}
