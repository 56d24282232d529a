import { CodeViewer, type CodeView } from "../localize/code-view.js";
import { DependencyExplorer, renderDependencyTree, type NodeStatuses } from "../localize/dependencies.js";
import { LocalizationLog, type LocalizationQuery } from "../localize/query-log.js";
import { codeViewSummary, dependencySummary, renderCodeView, renderSearchResult, searchSummary } from "../localize/render.js";
import { RpgSearch } from "../localize/search.js";
import type { CodeIntelligence } from "../lsp/code-intelligence.js";
import { expectedSymbol } from "../lsp/dependency-check.js";
import type { ToolBox } from "../llm/tool-loop.js";
import type { Rpg, RpgNode } from "../rpg/schema.js";
import { fixToolBox } from "./fix-tools.js";

/** The characters the localization section of a fix prompt may take at most; askFix shrinks it further to fit the token budget. */
export const FIX_CONTEXT_CHARS = 6000;

/** Failing tests whose messages are searched for, per iteration: the first few say most of what the rest would. */
const SEARCHED_MESSAGES = 3;
/** A failure message is cut to this before it is searched for: its head names what failed. */
const QUERY_CHARS = 200;

export interface FixLocalizationOptions {
  rpg: Rpg;
  /** The work tree: where the code the tests run against is. */
  root: string;
  python: string;
  /** The run's code intelligence once started (undefined: none, the code view alone). */
  intelligence?: () => Promise<CodeIntelligence | undefined>;
  /** The nodes' statuses as the run has them now: failed ones are marked in the dependency tree. */
  statuses: () => NodeStatuses;
  /** Queries per debug iteration; default the PRD's 20 (LOCALIZATION_QUERY_LIMIT). */
  queryLimit?: number;
}

/** What a failing test said, as the failure brief has it. */
export interface FailingTest {
  name: string;
  message?: string | undefined;
}

/**
 * The localization tools of issue 18 for the debug loop, one per run: the RPG's search index, its
 * dependency graph and a code view of the work tree, built once and shared by every node's localizer.
 */
export class FixLocalization {
  private readonly explorer: DependencyExplorer;
  private readonly search: RpgSearch;
  private readonly viewer: CodeViewer;

  constructor(private readonly options: FixLocalizationOptions) {
    this.explorer = new DependencyExplorer(options.rpg);
    // Offline ranking: the same failure gives the same hits on every run, so prompts replay from cassettes.
    this.search = new RpgSearch(options.rpg);
    this.viewer = new CodeViewer(options.root, { python: options.python, rpg: options.rpg });
  }

  /** The localizer of one node's debug loop: its query log, and the answers it has already had. */
  forNode(node: RpgNode, dependencies: readonly RpgNode[], files: readonly string[]): NodeLocalizer {
    return new NodeLocalizer(this.options, this.explorer, this.search, this.viewer, node, dependencies, files);
  }
}

/** One answer, rendered for the prompt. */
interface Piece {
  section: "dependencies" | "code" | "search";
  text: string;
  /** A search's hits, by id: a second search that found the same is one line, not the list again. */
  hits?: string;
  query?: string;
}

/** What a fix request is told of the node's surroundings, rendered to a number of characters. */
export interface FixContext {
  /** The section's text in at most `maxChars` characters (whole answers only; "" for none). */
  render(maxChars: number): string;
  /** The queries this iteration asked, for the node's artifacts. */
  queries: readonly LocalizationQuery[];
}

const HEADINGS: Record<Piece["section"], string> = {
  dependencies: "Dependencies, two hops each way (FAILED marks a node that did not pass; it may be the root cause):",
  code: "Code of the dependencies, as generated:",
  search: "The RPG searched for the failing tests' messages (the node's subgraph):",
};

/**
 * Gathers, before each fix request and without the model, what the PRD's debugger would look up: the node's
 * dependencies two hops each way, the code of those it depends on (the language server first, the code view
 * as the fallback), and RPG search hits for the failing tests' messages. Every query goes to the query log and
 * counts against the iteration's limit; an answer already had is reused, not asked again, so the log's history
 * (quoted in the next prompt) shows what has been looked at, once.
 */
export class NodeLocalizer {
  readonly log: LocalizationLog;
  private readonly answers = new Map<string, Piece[]>();

  constructor(
    private readonly options: FixLocalizationOptions,
    private readonly explorer: DependencyExplorer,
    private readonly search: RpgSearch,
    private readonly viewer: CodeViewer,
    private readonly node: RpgNode,
    private readonly dependencies: readonly RpgNode[],
    /** The node's own files, which it has changed since the server last heard of them. */
    private readonly files: readonly string[],
  ) {
    this.log = new LocalizationLog({ nodeId: node.id, ...(options.queryLimit !== undefined ? { limit: options.queryLimit } : {}) });
  }

  /**
   * The read-only tools for the model to call during fix `iteration` (decision 0030), over the same log: its calls
   * count against the iteration's limit beside what `gather` asked.
   */
  toolBox(): ToolBox {
    const intelligence = async (): Promise<CodeIntelligence | undefined> => {
      const ci = await this.options.intelligence?.();
      await ci?.filesChanged(this.files).catch(() => undefined);
      return ci;
    };
    return fixToolBox({
      node: this.node,
      log: this.log,
      explorer: this.explorer,
      search: this.search,
      viewer: this.viewer,
      statuses: this.options.statuses,
      intelligence,
    });
  }

  /** The context of fix `iteration` (1-based), given the tests that fail now (none after a refused proposal). */
  async gather(iteration: number, failing: readonly FailingTest[]): Promise<FixContext> {
    this.log.nextIteration(iteration);
    // Before this iteration's queries: what earlier iterations asked, for the model not to ask again.
    const history = this.log.entries().length > 0 ? this.log.render({ maxChars: 1500 }) : "";
    const intelligence = await this.options.intelligence?.();
    // The server must read the module as it is now; a failure here is the server's to tell, never the fix's.
    await intelligence?.filesChanged(this.files).catch(() => undefined);
    const pieces: Piece[] = [];
    const ask = async (tool: string, query: string, answer: () => Promise<Piece[]>): Promise<void> => {
      const key = `${tool}\u0000${query}`;
      let known = this.answers.get(key);
      if (!known) {
        // The limit holds: what does not fit this iteration's queries waits for the next one.
        if (this.log.remaining === 0) return;
        // A query that fails is in the log with its error; the fix goes ahead without its answer.
        known = await answer().catch((): Piece[] => []);
        this.answers.set(key, known);
      }
      pieces.push(...known);
    };

    await ask("explore_dependencies", this.node.id, async () => {
      const view = await this.log.run(
        "explore_dependencies",
        this.node.id,
        () => this.explorer.explore(this.node.id, this.options.statuses()),
        dependencySummary,
      );
      return [{ section: "dependencies", text: renderDependencyTree(view) }];
    });
    for (const dependency of this.dependencies) {
      const { file, qualname } = expectedSymbol(this.options.rpg, dependency);
      if (intelligence) await ask("find_symbol", `${qualname} in ${file}`, () => this.viaIntelligence(intelligence, dependency));
      else await ask("view_code", dependency.id, () => this.viewNode(dependency));
    }
    // "AssertionError:" would match every docstring that names an error: the query is what follows it.
    const queryOf = (t: FailingTest): string =>
      oneLine(t.message ?? "")
        .replace(/^[\w.]*(Error|Exception): /, "")
        .slice(0, QUERY_CHARS);
    const messages = [...new Set(failing.map(queryOf).filter((m) => m !== ""))];
    for (const message of messages.slice(0, SEARCHED_MESSAGES)) {
      await ask("search_rpg", message, async () => {
        const found = await this.log.run(
          "search_rpg",
          message,
          () => this.search.searchOffline(message, { scope: { subgraph: this.node.subgraph_id } }),
          searchSummary,
        );
        const hits = found.hits.map((h) => h.id).join(" ");
        return found.hits.length > 0 ? [{ section: "search", text: renderSearchResult(found), hits, query: message }] : [];
      });
    }
    const queries = this.log.entries(iteration);
    return { queries, render: (maxChars) => renderContext(pieces, history, maxChars) };
  }

  /** A dependency's code where the language server (or the parser standing in) finds it; the code view by node when it does not. */
  private async viaIntelligence(intelligence: CodeIntelligence, dependency: RpgNode): Promise<Piece[]> {
    const { file, qualname } = expectedSymbol(this.options.rpg, dependency);
    // A query that fails (a file gone from the work tree) is logged with its error; the code view is asked instead.
    const found = await this.log
      .run(
        "find_symbol",
        `${qualname} in ${file}`,
        () => intelligence.findSymbol({ name: qualname, file }),
        (answer) => answer.value.map((m) => `${m.file}:${m.line} ${m.qualname}`),
      )
      .catch(() => undefined);
    const match = found?.value[0];
    if (!match) return this.log.remaining > 0 ? this.viewNode(dependency) : [];
    const view = await this.viewer.view({ file: match.file, symbol: match.qualname });
    return [{ section: "code", text: renderCodeView(view.kind === "source" ? { ...view, nodeId: dependency.id } : view) }];
  }

  private async viewNode(dependency: RpgNode): Promise<Piece[]> {
    const view: CodeView = await this.log.run(
      "view_code",
      dependency.id,
      () => this.viewer.view({ nodeId: dependency.id }, { statuses: this.options.statuses() }),
      codeViewSummary,
    );
    return [{ section: "code", text: renderCodeView(view) }];
  }
}

/**
 * The pieces under their headings, in order of use to a fix (the tree, the code, the search hits, then the history),
 * whole pieces only, as many as `maxChars` holds; the last line says how many were left out.
 */
function renderContext(pieces: readonly Piece[], history: string, maxChars: number): string {
  if (maxChars <= 0) return "";
  const blocks: { section: string; text: string; hits?: string; query?: string }[] = pieces.map((p) => ({ ...p, text: p.text.trimEnd() }));
  if (history !== "") blocks.push({ section: "history", text: history });
  const out: string[] = [];
  let size = 0;
  let left = 0;
  let current: string | undefined;
  // Room for the line that says what was left out.
  const room = maxChars - 60;
  const shown = new Set<string>();
  for (const block of blocks) {
    const again = block.hits !== undefined && shown.has(block.hits);
    if (again) block.text = `Search ${JSON.stringify(block.query)}: the same matches as above.`;
    const heading = block.section !== current && block.section in HEADINGS ? `${HEADINGS[block.section as Piece["section"]]}\n` : "";
    const cost = heading.length + block.text.length + 2;
    if (size + cost > room) {
      left++;
      continue;
    }
    if (heading) current = block.section;
    if (block.hits !== undefined) shown.add(block.hits);
    out.push(`${heading}${block.text}`);
    size += cost;
  }
  if (left > 0) out.push(`(${left} more answer${left === 1 ? "" : "s"} left out to fit the prompt)`);
  return out.join("\n\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
