import { RpgForgeError } from "../errors.js";

/** The PRD's budget: a debug iteration that has not found the bug in 20 queries is searching in circles. */
export const LOCALIZATION_QUERY_LIMIT = 20;

/** One localization query and what it found. */
export interface LocalizationQuery {
  /** The debug iteration it was asked in (1-based, as the engine counts them). */
  iteration: number;
  /** Its place in that iteration, 1-based. */
  n: number;
  /** The tool's name as the model calls it: search_rpg, view_code, explore_dependencies, find_symbol, ... */
  tool: string;
  /** What was asked: the query text, the file or node id. */
  query: string;
  /** One short line per result (a node id and score, a file and its line count), best first. */
  results: string[];
  /** Why the query failed, when it did. */
  error?: string;
}

/**
 * The 21st query of an iteration. It carries the whole history, which is the debug context the PRD
 * escalates to a person with; `render` of the log gives the same as text.
 */
export class LocalizationExhaustedError extends RpgForgeError {
  constructor(
    readonly iteration: number,
    readonly limit: number,
    readonly history: readonly LocalizationQuery[],
    nodeId?: string,
  ) {
    super(
      "LOCALIZE_EXHAUSTED",
      `debug iteration ${iteration} used all ${limit} localization queries`,
      nodeId === undefined ? {} : { nodeId },
      "fix with what was found, or hand the node to a person with the query history",
    );
  }
}

export interface QueryLogOptions {
  /** Queries allowed per iteration; default LOCALIZATION_QUERY_LIMIT. */
  limit?: number;
  /** The node being debugged, named by the error. */
  nodeId?: string;
  /** The iteration the log starts in; default 1. */
  iteration?: number;
}

/**
 * Every localization query of one node's debug loop, by iteration. The engine asks through `run`
 * (or `record`), calls `nextIteration` when a fix has been tried, and puts `render()` into the next
 * prompt so that the model does not ask the same questions again. Plain data: it keeps no clock and
 * does no I/O.
 */
export class LocalizationLog {
  readonly limit: number;
  private readonly nodeId: string | undefined;
  private current: number;
  private readonly all: LocalizationQuery[] = [];
  /** Queries started with `run` and not yet recorded: they hold a place in the budget. */
  private pending = 0;

  constructor(options: QueryLogOptions = {}) {
    this.limit = options.limit ?? LOCALIZATION_QUERY_LIMIT;
    this.nodeId = options.nodeId;
    this.current = options.iteration ?? 1;
  }

  get iteration(): number {
    return this.current;
  }

  /** Queries of the current iteration, recorded or under way. */
  get used(): number {
    return this.entries(this.current).length + this.pending;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  /** Starts the next iteration (or the one given) with a fresh budget; the history is kept. */
  nextIteration(iteration = this.current + 1): void {
    this.current = iteration;
    this.pending = 0;
  }

  /** The queries of one iteration, or of all, in the order asked. */
  entries(iteration?: number): readonly LocalizationQuery[] {
    return iteration === undefined ? [...this.all] : this.all.filter((q) => q.iteration === iteration);
  }

  /** Logs a query that has run. Throws LocalizationExhaustedError when the iteration's budget is spent already. */
  record(tool: string, query: string, results: readonly string[], error?: string): LocalizationQuery {
    this.claim();
    return this.push(tool, query, results, error);
  }

  /**
   * Runs a query if the budget allows (else throws LocalizationExhaustedError before running it), and
   * logs it with `summarize`'s lines, or with its error, which is rethrown.
   */
  async run<T>(tool: string, query: string, fn: () => T | Promise<T>, summarize: (result: T) => readonly string[]): Promise<T> {
    this.claim();
    this.pending++;
    const iteration = this.current;
    try {
      const result = await fn();
      this.push(tool, query, summarize(result), undefined, iteration);
      return result;
    } catch (error) {
      this.push(tool, query, [], error instanceof Error ? error.message : String(error), iteration);
      throw error;
    } finally {
      if (this.current === iteration) this.pending--;
    }
  }

  /**
   * The history as a few compact lines for the next prompt: each query once (with how often it was
   * asked), its first results, newest iterations kept when `maxChars` is short.
   */
  render(options: { maxChars?: number } = {}): string {
    const maxChars = options.maxChars ?? 3000;
    if (this.all.length === 0) return "";
    const iterations = [...new Set(this.all.map((q) => q.iteration))].sort((a, b) => a - b);
    const blocks = iterations.map((it) => [`Iteration ${it}:`, ...queryLines(this.entries(it))].join("\n"));
    const head = `Localization queries already asked (${this.used} of ${this.limit} used in iteration ${this.current}); do not ask them again:`;
    // Room for the blocks, less the line that says how many older queries were left out.
    const room = Math.max(0, maxChars - head.length - 1 - 50);
    const kept: string[] = [];
    let size = 0;
    for (let i = blocks.length - 1; i >= 0; i--) {
      if (kept.length > 0 && size + blocks[i]!.length + 1 > room) {
        const left = iterations.slice(0, i + 1).reduce((n, it) => n + this.entries(it).length, 0);
        kept.unshift(`(${left} queries of earlier iterations left out)`);
        break;
      }
      const block = blocks[i]!.slice(0, room);
      kept.unshift(block);
      size += block.length + 1;
    }
    return [head, ...kept].join("\n");
  }

  private claim(): void {
    if (this.used >= this.limit) throw new LocalizationExhaustedError(this.current, this.limit, this.entries(), this.nodeId);
  }

  private push(
    tool: string,
    query: string,
    results: readonly string[],
    error: string | undefined,
    iteration = this.current,
  ): LocalizationQuery {
    const n = this.all.filter((q) => q.iteration === iteration).length + 1;
    const entry: LocalizationQuery = { iteration, n, tool, query, results: [...results], ...(error !== undefined ? { error } : {}) };
    this.all.push(entry);
    return entry;
  }
}

/** Results shown per query; the model needs to know what a query found, not all of it again. */
const RESULTS_SHOWN = 3;
const LINE_CHARS = 200;

function queryLines(queries: readonly LocalizationQuery[]): string[] {
  const seen = new Map<string, { first: LocalizationQuery; times: number }>();
  for (const q of queries) {
    const key = `${q.tool}\u0000${q.query}`;
    const known = seen.get(key);
    if (known) known.times++;
    else seen.set(key, { first: q, times: 1 });
  }
  return [...seen.values()].map(({ first, times }) => {
    const found = first.error
      ? `failed: ${first.error}`
      : first.results.length === 0
        ? "nothing"
        : first.results.slice(0, RESULTS_SHOWN).join("; ") +
          (first.results.length > RESULTS_SHOWN ? `; +${first.results.length - RESULTS_SHOWN} more` : "");
    const line = `  ${first.n}. ${first.tool} ${JSON.stringify(oneLine(first.query))}${times > 1 ? ` (asked ${times} times)` : ""} -> ${oneLine(found)}`;
    return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
