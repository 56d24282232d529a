import { CodeIntelligence } from "../lsp/code-intelligence.js";
import { pyrightInstalled } from "../lsp/pyright-binary.js";
import type { DependencyCheck } from "../record/dependency-check.js";
import type { Rpg } from "../rpg/schema.js";
import { oneAtATime } from "./one-at-a-time.js";

export interface RunIntelligenceOptions {
  /** The work tree. */
  root: string;
  python: string;
  /** The language server on or off; undefined: on when the pyright package resolves. */
  server: boolean | undefined;
  onNotice?: ((text: string) => void) | undefined;
}

/** The run's one CodeIntelligence (decision 0028), as the engine uses it: nothing here ever fails a run. */
export interface RunIntelligence {
  /** The instance once started; undefined when it could not start at all (told as a notice). */
  get(): Promise<CodeIntelligence | undefined>;
  /**
   * Notes that these files of the work tree changed on disk. The server is told of every noted file at once, before the
   * next question it is asked (get, checkDependencies): told after each node, pyright listed the workspace again for
   * each new module, and no one asked it anything in between (issue 16).
   */
  filesChanged(paths: readonly string[]): Promise<void>;
  /** The dependency check of the work tree's code; undefined when it could not be made (told as a notice). */
  checkDependencies(rpg: Pick<Rpg, "nodes" | "edges">): Promise<DependencyCheck | undefined>;
  /** Stops the server; call it before the work tree is removed. */
  close(): Promise<void>;
}

/**
 * Starts code intelligence on the work tree in the background: pyright-langserver when it is on and installed,
 * Python's parser otherwise. A server that fails, now or later, leaves the parser answering, with a notice
 * (ServerOrParser tells it once); anything else that goes wrong is a notice too, and the run goes on without.
 */
export function startCodeIntelligence(options: RunIntelligenceOptions): RunIntelligence {
  const notice = (text: string): void => options.onNotice?.(text);
  const server = options.server ?? pyrightInstalled();
  const started = CodeIntelligence.start({
    root: options.root,
    python: options.python,
    server,
    onWarning: (message) => notice(`code intelligence: ${message}`),
  }).catch((error: unknown) => {
    notice(`code intelligence could not start (${(error as Error).message}); fixes get no code of their dependencies`);
    return undefined;
  });
  const guarded = async <T>(what: string, work: (ci: CodeIntelligence) => Promise<T>): Promise<T | undefined> => {
    const ci = await started;
    if (!ci) return undefined;
    try {
      return await work(ci);
    } catch (error) {
      notice(`code intelligence: ${what} failed: ${(error as Error).message}`);
      return undefined;
    }
  };
  let noted = new Set<string>();
  const serially = oneAtATime();
  // Queued even with nothing noted: every question waits for every announcement before it, its own and one another
  // question started, since pyright hears of a file only once it is queued, after a look at the disk.
  const announce = (): Promise<void> => {
    const paths = [...noted];
    noted = new Set();
    return serially(async () => {
      if (paths.length > 0) await guarded("announcing changed files", (ci) => ci.filesChanged(paths));
    });
  };
  return {
    get: async () => {
      await announce();
      return started;
    },
    filesChanged: async (paths) => {
      for (const path of paths) noted.add(path);
    },
    checkDependencies: async (rpg) => {
      await announce();
      return (await guarded("the dependency check", (ci) => ci.checkDependencies(rpg)))?.value;
    },
    close: async () => {
      await guarded("stopping the language server", (ci) => ci.close());
    },
  };
}
