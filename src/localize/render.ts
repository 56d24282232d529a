import type { CodeView } from "./code-view.js";
import type { DependencyView } from "./dependencies.js";
import type { SearchResult } from "./search.js";
import type { SignatureStatement } from "./signatures.js";

/**
 * The localization tools' results as text: what `rpg-forge search|view|deps` print and what a prompt
 * quotes. Plain text with no colour; an edge that prints to a terminal strips control characters itself.
 */

export function renderSearchResult(result: SearchResult): string {
  const scope = result.scope === "all" ? "all subgraphs" : `subgraph ${result.scope.subgraph}`;
  const how = result.ranking === "embeddings" ? `by embeddings (${result.model})` : "by BM25, offline";
  const lines = [`Search ${JSON.stringify(result.query)} in ${scope}, ranked ${how}: ${count(result.hits.length, "match", "matches")}`];
  if (result.fallback) lines.push(`(embeddings unavailable, ranked offline: ${result.fallback})`);
  for (const note of result.notes) lines.push(`(${note})`);
  const width = Math.max(0, ...result.hits.map((h) => h.id.length));
  result.hits.forEach((hit, i) => {
    lines.push(`${String(i + 1).padStart(2)}. ${hit.id.padEnd(width)}  ${hit.score.toFixed(4)}  [${hit.subgraphId}] ${hit.filePath}`);
    if (hit.signature) lines.push(`      ${hit.signature}`);
    if (hit.preview) lines.push(`      ${hit.preview}`);
    if (hit.matched.length > 0) lines.push(`      matched: ${hit.matched.join(", ")}`);
  });
  return `${lines.join("\n")}\n`;
}

export function renderCodeView(view: CodeView): string {
  const who = view.nodeId ? ` (node ${view.nodeId}${view.status ? `, ${view.status}` : ""})` : "";
  if (view.kind === "missing") return `${view.file}${who}: ${view.message}\n`;
  if (view.kind === "source") {
    const width = String(view.endLine).length;
    const range =
      view.symbol === undefined || view.note !== undefined
        ? `${view.totalLines} lines`
        : `lines ${view.startLine}-${view.endLine} of ${view.totalLines}`;
    const head = `# ${view.file}${view.symbol ? ` ${view.symbol}` : ""}${who}: ${range}`;
    const body = view.text.split("\n").map((line, i) => `${String(view.startLine + i).padStart(width)} | ${line}`);
    return `${[head, ...(view.note ? [`# ${view.note}`] : []), ...body].join("\n")}\n`;
  }
  const head = `# ${view.file}${who}: outline, ${view.totalLines} lines${view.doc ? `: ${view.doc}` : ""}`;
  if (view.parseError)
    return `${head}\n# does not parse: line ${view.parseError.line}, column ${view.parseError.column}: ${view.parseError.message}\n`;
  const width = String(view.totalLines).length;
  const lines = [head];
  const focus = view.symbol?.split(".")[0];
  for (const st of view.statements) {
    const text = headerOf(st);
    if (text === undefined) continue;
    const mark = st.name !== null && st.name === focus ? ">" : " ";
    lines.push(`${mark}${String(st.start).padStart(width)}  ${text}`);
    for (const m of st.members ?? []) {
      const memberMark = view.symbol === `${st.name}.${m.name}` ? ">" : " ";
      lines.push(`${memberMark}${String(m.start).padStart(width)}      ${headerOf(m) ?? m.name}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** `@decorator def name(...) -> T:  # first docstring line`; undefined for what an outline leaves out. */
function headerOf(
  st: Pick<SignatureStatement, "header" | "decorators" | "doc"> & { kind?: SignatureStatement["kind"] },
): string | undefined {
  if (st.kind === "docstring" || st.header === undefined) return undefined;
  const decorators = st.decorators?.length ? `${st.decorators.join(" ")} ` : "";
  return `${decorators}${st.header}${st.doc ? `  # ${st.doc}` : ""}`;
}

/** One line per result, for the query log: what a later iteration needs to know a query found. */
export function searchSummary(result: SearchResult): string[] {
  return result.hits.map((h) => `${h.id} (${h.score.toFixed(2)})`);
}

export function codeViewSummary(view: CodeView): string[] {
  if (view.kind === "missing") return [view.message];
  if (view.kind === "outline")
    return [
      view.parseError
        ? `${view.file} does not parse (line ${view.parseError.line})`
        : `${view.file}: outline of ${count(view.statements.length, "statement", "statements")}`,
    ];
  return [`${view.file}${view.symbol ? ` ${view.symbol}` : ""}: lines ${view.startLine}-${view.endLine}`];
}

export function dependencySummary(view: DependencyView): string[] {
  const ids = (list: { id: string }[]): string => list.map((n) => n.id).join(", ") || "none";
  return [
    `depends on: ${ids(view.dependsOn)}`,
    `needed by: ${ids(view.dependents)}`,
    ...(view.failedNearby.length > 0 ? [`failed nearby: ${view.failedNearby.join(", ")}`] : []),
  ];
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
