import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import {
  ApplyWorkspaceEditRequest,
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeWatchedFilesNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  RegistrationRequest,
  ResponseError,
  ShowMessageRequest,
  ShutdownRequest,
  StreamMessageReader,
  WorkspaceSymbolRequest,
  StreamMessageWriter,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  type ClientCapabilities,
  type FileEvent,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node";
import { pyrightLangserverScript, serverEnvironment } from "./pyright-binary.js";

/** The issue's limit: a request the server has not answered in this time means it hangs. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** After `exit`, how long the server has to end before it is killed. */
const EXIT_GRACE_MS = 2_000;

/**
 * Why the server could not answer. `fatal`: it exited, hung or broke the protocol, and has been killed; otherwise it
 * refused one request (an error response) and may answer the next.
 */
export class LanguageServerFailure extends Error {
  constructor(
    message: string,
    readonly fatal: boolean,
  ) {
    super(message);
    this.name = "LanguageServerFailure";
  }
}

const CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ["utf-16"] },
  workspace: {
    workspaceFolders: true,
    configuration: true,
    // We announce changed files ourselves, after each write batch: the server then keeps no watchers of its own.
    didChangeWatchedFiles: { dynamicRegistration: true },
    workspaceEdit: { documentChanges: true },
    symbol: {},
  },
  textDocument: {
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    references: {},
    rename: { prepareSupport: true },
  },
};

/** What pyright asks for with workspace/configuration: no type checking (we never ask for diagnostics). */
const SETTINGS: Record<string, unknown> = {
  python: { analysis: { typeCheckingMode: "off", diagnosticMode: "openFilesOnly", autoSearchPaths: true } },
  "python.analysis": { typeCheckingMode: "off", diagnosticMode: "openFilesOnly", autoSearchPaths: true },
  pyright: { disableOrganizeImports: true },
};

/**
 * Pyright logs this once it has listed the workspace's files; before that, it answers workspace/symbol with nothing
 * and references with null. Its wording is pyright's own: a pyright that changes it fails the start (a warning, then
 * the parser), and tests/lsp shows it.
 */
const READY = /^(Found \d+ source files?|No source files found\.)/;

/**
 * One pyright-langserver over stdio, started on a repository root. Every request has a time limit; a server that
 * exits, hangs or breaks the protocol is killed and fails every later request at once, so that the caller falls back.
 */
export class LanguageServer {
  private failure: string | undefined;
  private stopped = false;
  private inFlight = 0;
  private readonly logTail: string[] = [];
  private readyWaiter: (() => void) | undefined;
  /**
   * The announcements of changed files, in order, each sent once the listing the one before it caused is done: what
   * every later message waits for. Callers do not: a node's files are announced as it ends, and the next question may
   * be a node or more away (issue 16: waiting for pyright's listing was 15 ms of a node's 90).
   */
  private announced: Promise<void> = Promise.resolve();
  private readonly died: Promise<never>;
  private markDead!: (error: LanguageServerFailure) => void;
  private readonly killOnExit = (): void => this.kill();
  /** The time limit now: starting (reading the repository) may take the issue's 10 s even when requests may not. */
  private limitMs: number;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly connection: ProtocolConnection,
    readonly timeoutMs: number,
  ) {
    this.limitMs = Math.max(timeoutMs, REQUEST_TIMEOUT_MS);
    this.died = new Promise<never>((_, reject) => (this.markDead = reject));
    this.died.catch(() => undefined);
    // Our process ending must end the server too; pyright also exits when its stdin closes or its parent dies.
    process.once("exit", this.killOnExit);
    child.stderr.on("data", (chunk: Buffer) => this.remember(chunk.toString("utf8")));
    child.on("error", (error) => this.fail(`could not start: ${error.message}`));
    child.on("exit", (code, signal) => this.fail(`exited (${signal ?? `code ${code}`})`));
    connection.onError(([error]) => this.fail(`broke the protocol: ${error.message}`));
    connection.onClose(() => this.fail("closed its connection"));
    connection.onRequest(ConfigurationRequest.method, (params: { items: { section?: string }[] }) =>
      params.items.map((item) => SETTINGS[item.section ?? ""] ?? null),
    );
    for (const method of [
      RegistrationRequest.method,
      UnregistrationRequest.method,
      WorkDoneProgressCreateRequest.method,
      ShowMessageRequest.method,
    ])
      connection.onRequest(method, () => null);
    connection.onRequest(ApplyWorkspaceEditRequest.method, () => ({ applied: false }));
    connection.onNotification(LogMessageNotification.method, (params: { message: string }) => {
      this.remember(params.message);
      if (READY.test(params.message)) this.readyWaiter?.();
    });
    connection.listen();
  }

  /** Starts pyright-langserver on `root` and waits until it has read the repository; throws LanguageServerFailure. */
  static async start(root: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<LanguageServer> {
    let script: string;
    try {
      script = pyrightLangserverScript();
    } catch (error) {
      throw new LanguageServerFailure(`pyright is not installed: ${(error as Error).message}`, true);
    }
    const child = spawn(process.execPath, [script, "--stdio"], {
      cwd: root,
      env: serverEnvironment(script),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const server = new LanguageServer(child, connection, timeoutMs);
    try {
      await server.initialize(root);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** The server's process id (tests kill it to see the fallback). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why the server is out of use, if it is. */
  get failed(): string | undefined {
    return this.failure;
  }

  private async initialize(root: string): Promise<void> {
    const uri = pathToFileURL(root).href;
    const ready = this.nextListing();
    await this.request(InitializeRequest.method, {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: basename(root) }],
      capabilities: CAPABILITIES,
    });
    await this.notify(InitializedNotification.method, {});
    await this.within(ready, "did not finish listing the repository's files");
    // The first search parses and binds every file (about a second on a small repository); paid here, once, so that
    // the run's own requests find the server warm. Nothing is named like this, so nothing comes back.
    await this.request(WorkspaceSymbolRequest.method, { query: "rpg_forge_warm_up_" });
    this.limitMs = this.timeoutMs;
  }

  /** Sends a request and waits at most the time limit for its answer. */
  async request<R>(method: string, params: object | undefined): Promise<R> {
    await this.announced;
    if (this.failure) throw new LanguageServerFailure(this.failure, true);
    try {
      return await this.within(this.connection.sendRequest<R>(method, params), `did not answer ${method}`);
    } catch (error) {
      if (error instanceof LanguageServerFailure) throw error;
      if (error instanceof ResponseError) throw new LanguageServerFailure(`refused ${method}: ${error.message}`, false);
      throw this.fail(`failed on ${method}: ${(error as Error).message}`);
    }
  }

  async notify(method: string, params: object): Promise<void> {
    await this.announced;
    return this.send(method, params);
  }

  private async send(method: string, params: object): Promise<void> {
    if (this.failure) throw new LanguageServerFailure(this.failure, true);
    try {
      await this.connection.sendNotification(method, params);
    } catch (error) {
      throw this.fail(`failed on ${method}: ${(error as Error).message}`);
    }
  }

  /**
   * Tells the server which files changed on disk. A changed file is read again by the next request; a file created or
   * deleted makes pyright list the workspace again, a little later (`relisted`), and every later message waits until
   * it has. Returns at once: a server that fails meanwhile fails the next request, as one that died would.
   */
  async filesChanged(changes: readonly FileEvent[], relisted: boolean): Promise<void> {
    if (changes.length === 0) return;
    const announce = async (): Promise<void> => {
      const listed = relisted ? this.nextListing() : undefined;
      await this.send(DidChangeWatchedFilesNotification.method, { changes });
      if (listed) await this.within(listed, "did not list the workspace again after files were created or deleted");
    };
    // A failure is the server's for good (this.failure), and the next message reports it.
    this.announced = this.announced.then(announce).catch(() => undefined);
  }

  private nextListing(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.readyWaiter = () => {
        this.readyWaiter = undefined;
        resolve();
      };
    });
  }

  /** `promise`, or a fatal failure after the time limit or when the server dies first. */
  private async within<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    this.hold();
    try {
      return await Promise.race([
        promise,
        this.died,
        new Promise<never>((_, reject) => {
          const limit = this.limitMs;
          timer = setTimeout(() => reject(this.fail(`${what} within ${limit / 1000} s`)), limit);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.release();
    }
  }

  /** Takes the server out of use for good: it is killed, and every waiting request fails. */
  private fail(reason: string): LanguageServerFailure {
    if (!this.failure) {
      const tail = this.logTail.length > 0 ? ` (its last words: ${this.logTail.slice(-3).join(" | ")})` : "";
      this.failure = `pyright-langserver ${reason}${this.stopped ? "" : tail}`;
      this.markDead(new LanguageServerFailure(this.failure, true));
      this.kill();
    }
    return new LanguageServerFailure(this.failure, true);
  }

  /** shutdown, then exit; a server that does not end in time is killed. Never throws. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (!this.failure) {
      try {
        await this.request(ShutdownRequest.method, undefined);
        await this.notify(ExitNotification.method, {});
      } catch {
        // Failing here has killed it already.
      }
    }
    if (!(await this.exited(EXIT_GRACE_MS))) {
      this.kill();
      await this.exited(EXIT_GRACE_MS);
    }
    this.failure ??= "pyright-langserver was stopped";
    this.connection.dispose();
    process.off("exit", this.killOnExit);
  }

  private exited(ms: number): Promise<boolean> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.child.once("exit", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private remember(text: string): void {
    for (const line of text.split("\n")) if (line.trim() !== "") this.logTail.push(line.trim().slice(0, 300));
    this.logTail.splice(0, Math.max(0, this.logTail.length - 20));
  }

  // Between requests the server must not keep a finished run alive (our exit handler kills it); during one it must.
  private hold(): void {
    if (this.inFlight++ > 0) return;
    this.child.ref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { ref?(): void }).ref?.();
  }

  private release(): void {
    if (--this.inFlight > 0) return;
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as unknown as { unref?(): void }).unref?.();
  }
}
