import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, it, vi } from "vitest";
import { runPytest } from "../../src/sandbox/pytest.js";
import { ALLOWED_KEYS, dumpEnvironment, runChildren, secrets } from "./hostile-code.js";
import { nodeProgram, nodeProgramArgs } from "../helpers/node-program.js";
import { makePackage, makeTempDir, SANDBOXES, SEND_OUT, sentOut } from "./package-dir.js";

// Generated code is untrusted: these tests play the hostile package and check what each
// sandbox contains. Process mode guarantees less (see SandboxKind in src/sandbox/pytest.ts),
// so writes outside the package and the network are tested in bwrap only.
// Most run concurrently: several wait for children to outlive their sleep, and the
// hard-limit test waits out its full 16 s.

afterEach(() => {
  vi.unstubAllEnvs();
});

// Not concurrent: the secrets are stubbed into process.env, which every test shares.
describe.each(SANDBOXES)("the environment seen by hostile code in the %s sandbox", (sandbox) => {
  it("finds none of our secrets in its environment, its parent's or any process's it can see", async ({ expect, onTestFinished }) => {
    const values = secrets();
    for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
    const cwd = makePackage({ onTestFinished }, { "tests/test_env.py": dumpEnvironment(Object.values(values)) });
    const result = await runPytest({ cwd, targets: ["tests/test_env.py"], sandbox });
    const [read, found, keys] = sentOut(result) as [number, string[], string[]];
    // bubblewrap shows no /proc at all; outside it, the parent's and others' environments are there to read.
    if (sandbox === "bwrap") expect(read).toBe(0);
    else expect(read).toBeGreaterThan(1);
    expect(found).toEqual([]);
    expect(keys.filter((key) => !ALLOWED_KEYS.includes(key) && !key.startsWith("PYTEST_"))).toEqual([]);
  });
});

describe.concurrent.each(SANDBOXES)("hostile code in the %s sandbox", (sandbox) => {
  it("cannot leave a forked child or a subprocess running after the run", async (context) => {
    const { started, alive, timedOut } = await runChildren(context, sandbox, [
      { name: "fork", start: "fork", newSession: false },
      { name: "popen", start: "popen", newSession: false },
    ]);
    context.expect(started).toEqual(["fork", "popen"]);
    // Ended as every run ends, not by the hard time limit's kill.
    context.expect(timedOut).toBe(false);
    context.expect(alive).toEqual([]);
  });

  it("cannot keep a child alive by leaving the process group with setsid()", async (context) => {
    // bwrap: kill(-1) in the sandbox's PID namespace; process mode: the launcher, a child subreaper, gets it back and ends it.
    const { started, alive, timedOut } = await runChildren(context, sandbox, [
      { name: "setsid", start: "fork", newSession: true },
      { name: "session", start: "popen", newSession: true },
    ]);
    const { expect } = context;
    expect(started).toEqual(["setsid", "session"]);
    expect(timedOut).toBe(false);
    expect(alive).toEqual([]);
  });

  it("cannot outlast the hard time limit by blocking SIGALRM (1 test × 1 s + 15 s startup)", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        // Sleeps rather than spins: it runs for the full 16 s next to other tests. Blocked, not ignored:
        // installing a handler of its own (SIG_IGN) ends the run at once (see signed-report.test.ts).
        "tests/test_stubborn.py": `import signal
import time

def test_ignores_alarm():
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
    while True:
        time.sleep(0.05)
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_stubborn.py::test_ignores_alarm"], sandbox, perTestTimeoutMs: 1000 });
    expect(result).toMatchObject({ timedOut: true, exitCode: -1, tests: [], junitXml: undefined });
    expect(result.durationMs).toBeGreaterThanOrEqual(16_000);
    expect(result.durationMs).toBeLessThan(20_000);
  });
});

describe.concurrent("hostile code in the bwrap sandbox", () => {
  // Compiled before the tests start: compiling blocks the event loop, which the tests' process-group kills need.
  beforeAll(() => void nodeProgram("tests/sandbox/run-pytest-child.ts"));

  it("cannot write outside the package, not even by remounting as root", async ({ expect, onTestFinished }) => {
    const outside = join(makeTempDir({ onTestFinished }), "escaped.txt");
    const inHome = join(homedir(), `rpg-forge-escape-${randomUUID()}.txt`);
    const viaMount = join(homedir(), `rpg-forge-escape-${randomUUID()}.txt`);
    onTestFinished(() => [inHome, viaMount].forEach((path) => rmSync(path, { force: true })));
    const home = homedir();
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_escape.py": `import subprocess

def test_write_outside():
    for path in [${JSON.stringify(outside)}, ${JSON.stringify(inHome)}]:
        try:
            with open(path, "w") as f:
                f.write("escaped")
        except OSError:
            pass
    # As root in a container, a sandbox that kept its capabilities could make a read-only bind writable again.
    script = "mount --bind {h} {h} && mount -o remount,bind,rw {h} && echo escaped > {f}".format(h=${JSON.stringify(home)}, f=${JSON.stringify(viaMount)})
    subprocess.run(["sh", "-c", script])
    subprocess.run(["unshare", "-Urm", "sh", "-c", script])
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_escape.py"], sandbox: "bwrap" });
    expect(result.exitCode).toBe(0);
    expect([outside, inHome, viaMount].filter((path) => existsSync(path))).toEqual([]);
  });

  it("cannot change the package, its .git or its .github: they are read-only while the tests run", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        ".git/config": "[core]\n",
        ".github/workflows/ci.yml": "on: push\n",
        "stats.py": "x = 1\n",
        "tests/test_tamper.py": `import os, shutil

def attempt(name, action):
    try:
        action()
        return [name]
    except OSError:
        return []

def test_tamper(tmp_path):
    done = []
    done += attempt("workflow", lambda: open(".github/workflows/evil.yml", "w").write("on: push"))
    done += attempt("git config", lambda: open(".git/config", "a").write("[alias]"))
    done += attempt("remove ci", lambda: os.remove(".github/workflows/ci.yml"))
    done += attempt("rename .git", lambda: os.rename(".git", "git-moved"))
    done += attempt("module", lambda: open("stats.py", "w").write("x = 2"))
    done += attempt("conftest", lambda: open("tests/conftest.py", "w").write("x = 2"))
    done += attempt("pycache", lambda: os.makedirs("__pycache__"))
    done += attempt("tmp_path", lambda: (tmp_path / "scratch.txt").write_text("fine"))
    ${SEND_OUT}(done)
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_tamper.py"], sandbox: "bwrap" });
    expect(sentOut(result)).toEqual([["tmp_path"]]);
    expect(readFileSync(join(cwd, "stats.py"), "utf8")).toBe("x = 1\n");
    expect(readFileSync(join(cwd, ".git/config"), "utf8")).toBe("[core]\n");
    expect(existsSync(join(cwd, "tests/conftest.py"))).toBe(false);
  });

  it("sees no home directory, /opt or /run, but runs the interpreter that lives in one", async ({ expect, onTestFinished }) => {
    const planted = join(homedir(), `rpg-forge-credential-${randomUUID()}`);
    writeFileSync(planted, "a credential");
    onTestFinished(() => rmSync(planted, { force: true }));
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_look.py": `import os, sys

def test_look():
    readable = []
    for path in [${JSON.stringify(planted)}, "/home", "/opt", "/run", "/root"]:
        try:
            readable.append([path, os.listdir(path) if os.path.isdir(path) else open(path).read()])
        except OSError:
            pass
    ${SEND_OUT}(readable, sys.executable)
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox: "bwrap" });
    const [readable] = sentOut(result) as [[string, unknown][]];
    // The folders are there, empty but for the mount points of the interpreter (pyenv keeps it in a home).
    expect(readable.filter(([path]) => path === planted)).toEqual([]);
    const listed = readable.flatMap(([, entries]) => (Array.isArray(entries) ? (entries as string[]) : []));
    expect(listed).not.toContain(planted.split("/").pop());
    expect(readable.find(([path]) => path === "/run")?.[1]).toEqual([]);
  });

  it("cannot reach a server on the host's loopback", async ({ expect, onTestFinished }) => {
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const cwd = makePackage(
        { onTestFinished },
        {
          "tests/test_net.py": `import socket

def test_connect():
    try:
        socket.create_connection(("127.0.0.1", ${port}), timeout=2).sendall(b"stolen")
        result = "connected"
    except OSError as e:
        result = type(e).__name__
    ${SEND_OUT}(result)
`,
        },
      );
      const result = await runPytest({ cwd, targets: ["tests/test_net.py"], sandbox: "bwrap" });
      expect(sentOut(result)).toEqual(["ConnectionRefusedError"]);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("cannot read secrets from the initial environment of the process that runs it", async ({ expect, onTestFinished }) => {
    const values = secrets();
    const cwd = makePackage({ onTestFinished }, { "tests/test_env.py": dumpEnvironment(Object.values(values)) });
    // A separate Node process holding the secrets from its start, as a CI job's runner does.
    // Not execFileSync: blocking the event loop would delay the other tests' process-group kills.
    const { stdout: out } = await promisify(execFile)(
      process.execPath,
      nodeProgramArgs("tests/sandbox/run-pytest-child.ts", cwd, "bwrap", "tests/test_env.py"),
      {
        env: { ...process.env, ...values },
        encoding: "utf8",
      },
    );
    const [read, found] = sentOut(JSON.parse(out) as { output: string }) as [number, string[]];
    expect(read).toBe(0);
    expect(found).toEqual([]);
  });
});
