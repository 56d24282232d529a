import { LanguageServer, LanguageServerFailure } from "./language-server.js";
import type { Backend } from "./schema.js";

/** An answer, which implementation gave it, and what went wrong on the way (a server that failed, say). */
export interface Answer<T> {
  value: T;
  via: Backend;
  warnings: string[];
}

/**
 * Which implementation answers: the language server while it works, Python's parser after it failed to start, exited,
 * hung or broke the protocol (for the rest of the run), or for one request it refused. A failure is told once, as a
 * warning with the next operation, to `onWarning` and in that operation's answer; it never throws.
 */
export class ServerOrParser {
  private told = false;

  constructor(
    private server: LanguageServer | undefined,
    private startFailure: string | undefined,
    private readonly onWarning: (message: string) => void,
  ) {}

  /** Starts the server on `root`, or keeps why it could not for the first operation to tell. */
  static async start(root: string, timeoutMs: number, onWarning: (message: string) => void): Promise<ServerOrParser> {
    try {
      return new ServerOrParser(await LanguageServer.start(root, timeoutMs), undefined, onWarning);
    } catch (error) {
      return new ServerOrParser(undefined, (error as Error).message, onWarning);
    }
  }

  /** The parser alone, by choice: nothing to warn about. */
  static parserOnly(onWarning: (message: string) => void): ServerOrParser {
    return new ServerOrParser(undefined, undefined, onWarning);
  }

  get backend(): Backend {
    return this.server && !this.server.failed ? "pyright" : "ast";
  }

  get pid(): number | undefined {
    return this.server?.pid;
  }

  /** The server's answer, or the parser's when there is no server, it fails now, or it refuses this request. */
  async serve<T>(viaServer: (server: LanguageServer) => Promise<T>, viaParser: () => Promise<T>, warnings: string[]): Promise<Answer<T>> {
    const server = this.usable(warnings);
    if (server) {
      try {
        return { value: await viaServer(server), via: "pyright", warnings };
      } catch (error) {
        if (!(error instanceof LanguageServerFailure)) throw error;
        this.failed(error, warnings);
      }
    }
    return { value: await viaParser(), via: "ast", warnings };
  }

  /** Something only the server needs to hear (changed files): nothing without one, a warning if it fails. */
  async tell(what: (server: LanguageServer) => Promise<void>, warnings: string[]): Promise<void> {
    const server = this.usable(warnings);
    if (!server) return;
    try {
      await what(server);
    } catch (error) {
      if (!(error instanceof LanguageServerFailure)) throw error;
      this.failed(error, warnings);
    }
  }

  warn(warnings: string[], message: string): void {
    warnings.push(message);
    this.onWarning(message);
  }

  /** Stops the server (shutdown, exit, killed if it does not end). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.told = true; // stopping is no failure to tell
    await server?.stop();
  }

  /** The server if it is in use; one that failed since the last operation (it exited) is told of now. */
  private usable(warnings: string[]): LanguageServer | undefined {
    const why = this.startFailure ?? this.server?.failed;
    if (why !== undefined) {
      this.failed(new LanguageServerFailure(why, true), warnings);
      return undefined;
    }
    return this.server;
  }

  private failed(error: LanguageServerFailure, warnings: string[]): void {
    if (!error.fatal) return this.warn(warnings, `${error.message}; Python's parser answers this one`);
    if (this.told) return;
    this.told = true;
    this.warn(warnings, `${error.message}; Python's parser answers instead, for the rest of the run`);
  }
}
