import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, it, vi } from "vitest";
import { runPytest } from "../../src/sandbox/pytest.js";
import { ALLOWED_KEYS, DUMP_ENVIRONMENT, runChildren, secrets } from "./hostile-code.js";
import { makePackage, makeTempDir, SANDBOXES } from "./package-dir.js";

// Generated code is untrusted: these tests play the hostile package and check what each
// sandbox contains. Process mode guarantees less (see SandboxKind in src/sandbox/pytest.ts),
// so writes outside the package, the network and setsid() escapes are tested in bwrap only.
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
    const cwd = makePackage({ onTestFinished }, { "tests/test_env.py": DUMP_ENVIRONMENT });
    const result = await runPytest({ cwd, targets: ["tests/test_env.py"], sandbox });
    expect(result.exitCode).toBe(0);
    const seen = readFileSync(join(cwd, "seen.txt"), "utf8");
    expect(seen).toContain("environ ");
    expect(Object.values(values).filter((value) => seen.includes(value))).toEqual([]);
    const keys = readFileSync(join(cwd, "keys.txt"), "utf8").split("\n");
    expect(keys.filter((key) => !ALLOWED_KEYS.includes(key) && !key.startsWith("PYTEST_"))).toEqual([]);
  });
});

describe.concurrent.each(SANDBOXES)("hostile code in the %s sandbox", (sandbox) => {
  it("cannot leave a forked child or a subprocess running after the run", async (context) => {
    const { started, markers } = await runChildren(context, sandbox, [
      { name: "fork", start: "fork", newSession: false },
      { name: "popen", start: "popen", newSession: false },
    ]);
    context.expect(started).toEqual(["fork", "popen"]);
    context.expect(markers).toEqual([]);
  });

  it("cannot outlast the hard time limit by ignoring SIGALRM (1 test × 1 s + 15 s startup)", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        // Sleeps rather than spins: it runs for the full 16 s next to other tests.
        "tests/test_stubborn.py": `import signal
import time

def test_ignores_alarm():
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
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

  it("can change the package but not its .git and .github", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        ".git/config": "[core]\n",
        ".github/workflows/ci.yml": "on: push\n",
        "stats.py": "x = 1\n",
        "tests/test_tamper.py": `import os, shutil

def attempt(action):
    try:
        action()
    except OSError:
        pass

def test_tamper():
    attempt(lambda: open(".github/workflows/evil.yml", "w").write("on: push"))
    attempt(lambda: open(".git/config", "a").write("[alias]"))
    attempt(lambda: os.remove(".github/workflows/ci.yml"))
    attempt(lambda: shutil.rmtree(".github"))
    attempt(lambda: os.rename(".git", "git-moved"))
    with open("stats.py", "w") as f:
        f.write("x = 2\\n")
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_tamper.py"], sandbox: "bwrap" });
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(cwd, "stats.py"), "utf8")).toBe("x = 2\n");
    expect(readFileSync(join(cwd, ".git/config"), "utf8")).toBe("[core]\n");
    expect(readFileSync(join(cwd, ".github/workflows/ci.yml"), "utf8")).toBe("on: push\n");
    expect(existsSync(join(cwd, ".github/workflows/evil.yml"))).toBe(false);
    expect(existsSync(join(cwd, "git-moved"))).toBe(false);
  });

  it("keeps the paths given as readOnly read-only instead of the defaults", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "fixtures/data.csv": "a,b\n",
        ".github/notes.md": "hi\n",
        "tests/test_fixtures.py": `def test_tamper():
    open("fixtures/data.csv", "w").write("tampered")

def test_github_is_writable_now():
    open(".github/notes.md", "w").write("changed")
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_fixtures.py"], sandbox: "bwrap", readOnly: ["fixtures", "no-such-dir"] });
    expect(result.tests.map((t) => [t.name, t.status])).toEqual([
      ["test_tamper", "failed"],
      ["test_github_is_writable_now", "passed"],
    ]);
    expect(result.tests[0]!.message).toContain("Read-only file system");
    expect(readFileSync(join(cwd, "fixtures/data.csv"), "utf8")).toBe("a,b\n");
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
    with open("net.txt", "w") as f:
        f.write(result)
`,
        },
      );
      const result = await runPytest({ cwd, targets: ["tests/test_net.py"], sandbox: "bwrap" });
      expect(result.exitCode).toBe(0);
      expect(readFileSync(join(cwd, "net.txt"), "utf8")).toBe("ConnectionRefusedError");
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("cannot keep a child alive by leaving the process group with setsid()", async (context) => {
    const { started, markers } = await runChildren(context, "bwrap", [
      { name: "setsid", start: "fork", newSession: true },
      { name: "session", start: "popen", newSession: true },
    ]);
    const { expect } = context;
    expect(started).toEqual(["setsid", "session"]);
    expect(markers).toEqual([]);
  });

  it("cannot read secrets from the initial environment of the process that runs it", async ({ expect, onTestFinished }) => {
    const values = secrets();
    const cwd = makePackage({ onTestFinished }, { "tests/test_env.py": DUMP_ENVIRONMENT });
    // A separate Node process holding the secrets from its start, as a CI job's runner does.
    const child = join(import.meta.dirname, "run-pytest-child.ts");
    // Not execFileSync: blocking the event loop would delay the other tests' process-group kills.
    const { stdout: out } = await promisify(execFile)(process.execPath, ["--import", "tsx", child, cwd, "bwrap", "tests/test_env.py"], {
      env: { ...process.env, ...values },
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toMatchObject({ exitCode: 0 });
    const seen = readFileSync(join(cwd, "seen.txt"), "utf8");
    expect(Object.values(values).filter((value) => seen.includes(value))).toEqual([]);
  });
});
