import { z } from "zod";
import type { ToolBox } from "../llm/tool-loop.js";
import type { ToolCall, ToolSpec } from "../llm/provider.js";
import type { CodeViewer } from "../localize/code-view.js";
import { renderDependencyTree, type DependencyExplorer, type NodeStatuses } from "../localize/dependencies.js";
import { LocalizationExhaustedError, type LocalizationLog } from "../localize/query-log.js";
import { codeViewSummary, dependencySummary, renderCodeView, renderSearchResult, searchSummary } from "../localize/render.js";
import type { RpgSearch } from "../localize/search.js";
import type { CodeIntelligence } from "../lsp/code-intelligence.js";
import { redactSecrets } from "../redact.js";
import type { RpgNode } from "../rpg/schema.js";

/*
 * Issue 18's read-only tools, offered to the fix step as model tool calls (decision 0030). The arguments are the
 * model's, so hostile: each is checked against its schema, paths must stay inside the package, and every call
 * counts against the iteration's query limit. An answer is text for the model (redacted, never a verdict); a call
 * that cannot run answers with why, and nothing here throws into the node's loop or writes anything.
 */

/** A path in the package: relative, POSIX, no way up or out. */
const PackagePath = z
  .string()
  .min(1)
  .max(300)
  .refine((path) => !path.startsWith("/") && !path.includes("\\") && !path.split("/").includes(".."), "a path inside the package");
const Name = z.string().min(1).max(200);

const ARGUMENTS = {
  search_rpg: z.strictObject({ query: z.string().min(1).max(500), all_subgraphs: z.boolean().optional() }),
  view_code: z
    .strictObject({ node_id: Name.optional(), file: PackagePath.optional(), symbol: Name.optional() })
    .refine((a) => (a.node_id === undefined) !== (a.file === undefined), "either node_id or file"),
  explore_dependencies: z.strictObject({ node_id: Name }),
  find_symbol: z.strictObject({ name: Name, file: PackagePath.optional() }),
  find_referencing_symbols: z.strictObject({ name: Name, file: PackagePath.optional() }),
} as const;
type ToolName = keyof typeof ARGUMENTS;

const DESCRIPTIONS: Record<ToolName, string> = {
  search_rpg: "Search the plan's nodes by name, signature and docstring; the node's subgraph unless all_subgraphs.",
  view_code: "Show generated code: a node's symbol by node_id, or a file (a symbol of it when named) by path.",
  explore_dependencies: "What a node depends on and what depends on it, two hops each way; FAILED marks a node that did not pass.",
  find_symbol: "Where a name (`name` or `Class.method`) is defined in the generated code: file, line, signature, docstring.",
  find_referencing_symbols: "Where a name defined in the generated code is used: calls, imports and other references.",
};

/** The tool specs the fix request offers, with their arguments' JSON schemas. */
export const FIX_TOOL_SPECS: readonly ToolSpec[] = (Object.keys(ARGUMENTS) as ToolName[]).map((name) => ({
  name,
  description: DESCRIPTIONS[name],
  parameters: parametersOf(ARGUMENTS[name]),
}));

/** A function's parameters as the OpenAI API takes them: an object's JSON schema, without the draft's `$schema`. */
function parametersOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _draft, ...parameters } = z.toJSONSchema(schema) as Record<string, unknown>;
  return parameters;
}

/** What the tools read: one node's localizer's parts. */
export interface FixToolSources {
  node: RpgNode;
  log: LocalizationLog;
  explorer: DependencyExplorer;
  search: RpgSearch;
  viewer: CodeViewer;
  statuses: () => NodeStatuses;
  intelligence: () => Promise<CodeIntelligence | undefined>;
}

/** The fix step's toolbox over one node's sources. */
export function fixToolBox(sources: FixToolSources): ToolBox {
  return { specs: [...FIX_TOOL_SPECS], run: (call) => answerCall(sources, call) };
}

async function answerCall(sources: FixToolSources, call: ToolCall): Promise<string> {
  if (!(call.name in ARGUMENTS))
    return `no tool named ${JSON.stringify(call.name.slice(0, 80))}; the tools are ${Object.keys(ARGUMENTS).join(", ")}`;
  const name = call.name as ToolName;
  let json: unknown;
  try {
    json = JSON.parse(call.arguments);
  } catch {
    return `refused: the arguments of ${name} are not JSON`;
  }
  const parsed = ARGUMENTS[name].safeParse(json);
  if (!parsed.success)
    return `refused: ${name}'s arguments: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ")}`;
  try {
    return redactSecrets(await answer(sources, name, parsed.data as never));
  } catch (error) {
    if (error instanceof LocalizationExhaustedError)
      return `refused: this fix has used all ${error.limit} of its queries; answer with what you have found`;
    return `refused: ${redactSecrets(error instanceof Error ? error.message : String(error))}`;
  }
}

type Args<N extends ToolName> = z.infer<(typeof ARGUMENTS)[N]>;

async function answer<N extends ToolName>(s: FixToolSources, name: N, args: Args<N>): Promise<string> {
  switch (name) {
    case "search_rpg": {
      const { query, all_subgraphs } = args as Args<"search_rpg">;
      const scope = all_subgraphs ? "all" : { subgraph: s.node.subgraph_id };
      const found = await s.log.run(name, query, () => s.search.searchOffline(query, { scope }), searchSummary);
      return renderSearchResult(found);
    }
    case "view_code": {
      const a = args as Args<"view_code">;
      const target = a.node_id !== undefined ? { nodeId: a.node_id } : { file: a.file!, ...(a.symbol ? { symbol: a.symbol } : {}) };
      const query = a.node_id ?? `${a.file}${a.symbol ? ` ${a.symbol}` : ""}`;
      const view = await s.log.run(name, query, () => s.viewer.view(target, { statuses: s.statuses() }), codeViewSummary);
      return renderCodeView(view);
    }
    case "explore_dependencies": {
      const { node_id } = args as Args<"explore_dependencies">;
      const view = await s.log.run(name, node_id, () => s.explorer.explore(node_id, s.statuses()), dependencySummary);
      return renderDependencyTree(view);
    }
    case "find_symbol": {
      const { name: symbol, file } = args as Args<"find_symbol">;
      const ci = await s.intelligence();
      if (!ci) return "refused: code intelligence is not available in this run; use view_code";
      const found = await s.log.run(
        name,
        `${symbol}${file ? ` in ${file}` : ""}`,
        () => ci.findSymbol({ name: symbol, ...(file ? { file } : {}) }),
        (a) => a.value.map((m) => `${m.file}:${m.line} ${m.qualname}`),
      );
      if (found.value.length === 0) return `no definition of ${symbol} found`;
      return found.value.map((m) => `${m.file}:${m.line} ${m.kind} ${m.qualname}\n${m.preview}`).join("\n\n");
    }
    case "find_referencing_symbols": {
      const { name: symbol, file } = args as Args<"find_referencing_symbols">;
      const ci = await s.intelligence();
      if (!ci) return "refused: code intelligence is not available in this run; use search_rpg";
      const found = await s.log.run(
        name,
        `${symbol}${file ? ` in ${file}` : ""}`,
        () => ci.findReferencingSymbols({ name: symbol, ...(file ? { file } : {}) }),
        (a) => a.value.references.map((r) => `${r.file}:${r.line} ${r.kind}`),
      );
      const refs = found.value.references;
      if (refs.length === 0) return `no reference to ${symbol} found`;
      return refs.map((r) => `${r.file}:${r.line} ${r.kind}${r.enclosing ? ` in ${r.enclosing.qualname}` : ""}: ${r.text}`).join("\n");
    }
  }
  return `no tool named ${String(name)}`;
}
