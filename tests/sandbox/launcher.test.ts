import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "vitest";
import { runPytest, type PytestResult } from "../../src/sandbox/pytest.js";
import { processesIn } from "./hostile-code.js";
import { makePackage, makeTempDir, SANDBOXES, SEND_OUT, sentOut } from "./package-dir.js";

// The launcher (decision 0031) serves gate after gate from one interpreter and, in bubblewrap, one sandbox: what one
// gate does must not reach the next, and a launcher that a gate broke must not serve another.

const outcomes = (result: PytestResult): Record<string, string> | false =>
  result.report.authentic && Object.fromEntries(result.report.outcomes);

describe("the launcher in the process sandbox", () => {
  it("serves a package's gates one after another from one interpreter", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      { "tests/test_parent.py": `import os\n\ndef test_parent():\n    ${SEND_OUT}(os.getppid())\n` },
    );
    const first = sentOut(await runPytest({ cwd, targets: ["tests/test_parent.py"], sandbox: "process" })) as number[];
    const second = sentOut(await runPytest({ cwd, targets: ["tests/test_parent.py"], sandbox: "process" }));
    expect(first).toEqual(second);
    expect(first[0]).not.toBe(process.pid);
  });

  it("never empties what a link put in place of its folder points to", async ({ expect, onTestFinished }) => {
    // In process mode the tests run as the engine's user and can move the launcher's folder away and leave a link to
    // another folder in its place: the engine, emptying its folder after the gate, emptied that one with its own rights.
    const victim = makeTempDir({ onTestFinished });
    writeFileSync(join(victim, "precious"), "not the tests' to remove");
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_swap.py": `import os

def test_swap():
    private = os.path.dirname(os.environ["HOME"])
    os.rename(private, private + ".moved")
    os.symlink(${JSON.stringify(victim)}, private)
    with open("moved-to", "w") as f:
        f.write(private + ".moved")
`,
        "tests/test_fine.py": "def test_fine():\n    pass\n",
      },
    );
    expect(outcomes(await runPytest({ cwd, targets: ["tests/test_swap.py"], sandbox: "process" }))).toEqual({
      "tests/test_swap.py::test_swap": "passed",
    });
    onTestFinished(() => rmSync(readFileSync(join(cwd, "moved-to"), "utf8"), { recursive: true, force: true }));
    await sleep(300);
    // What the gate's own pytest wrote through the link (its JUnit report) is the tests' doing; nothing was removed.
    expect(readdirSync(victim)).toContain("precious");
    expect(readdirSync(victim).filter((name) => name === "home" || name === "tmp")).toEqual([]);
    // The launcher went with its folder; the next gate gets a new one.
    expect(outcomes(await runPytest({ cwd, targets: ["tests/test_fine.py"], sandbox: "process" }))).toEqual({
      "tests/test_fine.py::test_fine": "passed",
    });
  });
});

describe.concurrent.each(SANDBOXES)("the launcher in the %s sandbox", (sandbox) => {
  it("runs the next gate in a new launcher when a gate killed the one serving it", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_kill.py": `import os, signal, subprocess, sys, time

def test_kill():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    time.sleep(0.2)
    os.kill(os.getppid(), signal.SIGKILL)
`,
        "tests/test_fine.py": "def test_fine():\n    pass\n",
      },
    );
    const killed = await runPytest({ cwd, targets: ["tests/test_kill.py"], sandbox });
    expect(killed.exitCode).toBe(-1);
    expect(killed.report.authentic).toBe(false);
    expect(killed.output).toContain("the launcher serving this gate ended before the gate did");
    // What the gate started in its group goes with it, though nobody is left in the sandbox to end it.
    await sleep(300);
    const left = processesIn(cwd);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);
    const next = await runPytest({ cwd, targets: ["tests/test_fine.py"], sandbox });
    expect(outcomes(next)).toEqual({ "tests/test_fine.py::test_fine": "passed" });
  });

  it("ends a gate when the run is aborted, and serves the next one", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(60)\n",
        "tests/test_fine.py": "def test_fine():\n    pass\n",
      },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_500);
    const started = Date.now();
    const aborted = await runPytest({ cwd, targets: ["tests/test_slow.py"], sandbox, signal: controller.signal });
    expect(aborted.exitCode).toBe(-1);
    expect(aborted.timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(20_000);
    const next = await runPytest({ cwd, targets: ["tests/test_fine.py"], sandbox });
    expect(outcomes(next)).toEqual({ "tests/test_fine.py::test_fine": "passed" });
  });

  it("ends a gate whose abort reached the launcher together with its request", async ({ expect, onTestFinished }) => {
    // Aborted after runPytest looked and before the request was written (while a launcher started, say): the abort
    // follows the request's bytes at once, and the launcher reads both in one go. It must not wait for more input.
    const cwd = makePackage({ onTestFinished }, { "tests/test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(60)\n" });
    let looks = 0;
    const signal = {
      get aborted() {
        return looks++ > 0;
      },
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    } as unknown as AbortSignal;
    const started = Date.now();
    const aborted = await runPytest({ cwd, targets: ["tests/test_slow.py"], sandbox, signal });
    expect(aborted.exitCode).toBe(-1);
    expect(looks).toBeGreaterThan(1);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("runs each gate with the garbage collector on, though the launcher imports pytest with it off", async ({ expect, onTestFinished }) => {
    const cwd = makePackage({ onTestFinished }, { "tests/test_gc.py": `import gc\n\ndef test_gc():\n    ${SEND_OUT}(gc.isenabled())\n` });
    expect(sentOut(await runPytest({ cwd, targets: ["tests/test_gc.py"], sandbox }))).toEqual([true]);
  });

  it("collects no garbage once the tests have run: pytest's five collections at its end are skipped", async ({
    expect,
    onTestFinished,
  }) => {
    // Each full collection after the test says so on stderr, which the gate's output keeps, whenever it is written.
    const test = [
      "import gc, os",
      "",
      "after = []",
      "gc.callbacks.append(lambda phase, info: after and phase == 'start' and info['generation'] == 2 and os.write(2, b'full collection\\n'))",
      "",
      "def test_last():",
      "    gc.disable()  # a collection that comes due on its own is not pytest's; gc.collect() still runs",
      "    after.append(True)",
      "",
    ].join("\n");
    const cwd = makePackage({ onTestFinished }, { "tests/test_last.py": test });
    const result = await runPytest({ cwd, targets: ["tests/test_last.py"], sandbox });
    expect(result.exitCode).toBe(0);
    expect(result.output).not.toContain("full collection");
  });

  it("gives every hook the parameters pluggy reads, pytest's from what the launcher read and the package's read afresh", async ({
    expect,
    onTestFinished,
  }) => {
    // The package's hook shares a name with pytest's own but not its parameters: a table keyed by anything but the
    // function itself would hand it pytest's.
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/conftest.py": "def pytest_collection_modifyitems(items):\n    items.reverse()\n",
        "tests/test_hooks.py": `import pluggy._hooks

def test_hooks(request):
    varnames = pluggy._hooks.varnames
    cells = dict(zip(varnames.__code__.co_freevars, (cell.cell_contents for cell in varnames.__closure__)))
    read, remembered = cells["read"], len(cells["function_names"].__self__) + len(cells["method_names"].__self__)
    wrong, checked = [], 0
    for caller in vars(request.config.pluginmanager.hook).values():
        for hook in caller.get_hookimpls():
            checked += 1
            if (hook.argnames, hook.kwargnames) != read(hook.function):
                wrong.append(repr(hook.function))
    ours = [h.argnames for h in request.config.pluginmanager.hook.pytest_collection_modifyitems.get_hookimpls() if "conftest" in h.plugin_name]
    ${SEND_OUT}(varnames.__qualname__, remembered > 100, checked > 100, wrong, ours)
`,
      },
    );
    expect(sentOut(await runPytest({ cwd, targets: ["tests/test_hooks.py"], sandbox }))).toEqual([
      "_hook_parameters.<locals>.varnames",
      true,
      true,
      [],
      [["items"]],
    ]);
  });

  it("gives a gate's session its own arguments and folder, and pytest's own get_config back", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_config.py": `import os
import _pytest.config

def test_config(request):
    get_config = _pytest.config.get_config
    params = request.config.invocation_params
    ${SEND_OUT}(get_config.__qualname__, get_config.__module__, str(params.dir) == os.getcwd(), "tests/test_config.py" in params.args, request.config.pluginmanager.get_plugin("cacheprovider") is None)
`,
      },
    );
    // The session's configuration is the launcher's (gate-bootstrap.test.ts checks the handover on pytest's own module);
    // pytest's own get_config is back before the package's code runs, so a later session (a mutants' run) makes its own.
    expect(sentOut(await runPytest({ cwd, targets: ["tests/test_config.py"], sandbox }))).toEqual([
      "get_config",
      "_pytest.config",
      true,
      true,
      true,
    ]);
  });

  it("forks gates from an interpreter that never loaded ctypes", async ({ expect, onTestFinished }) => {
    // With _ctypes loaded, its types (reachable from object.__subclasses__()) call any C function with no audit event.
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_look.py": `import sys

def every_type():
    seen, todo = set(), [object]
    while todo:
        for sub in type.__subclasses__(todo.pop()):
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return seen

def test_look():
    ${SEND_OUT}(sorted(name for name in sys.modules if "ctypes" in name), sorted({t.__module__ for t in every_type()} & {"_ctypes", "ctypes"}))
`,
      },
    );
    expect(sentOut(await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox }))).toEqual([[], []]);
  });

  it("runs gates side by side, each with its own outcome", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_a.py": "import time\n\ndef test_a():\n    time.sleep(0.5)\n",
        "tests/test_b.py": "import time\n\ndef test_b():\n    time.sleep(0.5)\n    assert False\n",
      },
    );
    const [a, b] = await Promise.all(["tests/test_a.py", "tests/test_b.py"].map((file) => runPytest({ cwd, targets: [file], sandbox })));
    expect(outcomes(a!)).toEqual({ "tests/test_a.py::test_a": "passed" });
    expect(outcomes(b!)).toEqual({ "tests/test_b.py::test_b": "failed" });
  });

  it("gives each gate an empty HOME and TMPDIR, whatever the last one left there", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_leave.py": `import os, tempfile

def test_leave():
    for folder in (os.environ["HOME"], tempfile.gettempdir(), os.path.dirname(os.environ["HOME"])):
        open(os.path.join(folder, "left-behind"), "w").close()
`,
        "tests/test_look.py": `import os, tempfile

def test_look():
    private = os.path.dirname(os.environ["HOME"])
    ${SEND_OUT}(sorted(os.listdir(os.environ["HOME"])), sorted(os.listdir(tempfile.gettempdir())), sorted(os.listdir(private)))
`,
      },
    );
    expect(outcomes(await runPytest({ cwd, targets: ["tests/test_leave.py"], sandbox }))).toEqual({
      "tests/test_leave.py::test_leave": "passed",
    });
    const [home, tmp, launcherFolder] = sentOut(await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox })) as string[][];
    expect(home).toEqual([]);
    expect(tmp).toEqual([]);
    // The gates' HOME and TMPDIR; this gate's JUnit report is written when its session ends.
    expect(launcherFolder).toEqual(["home", "tmp"]);
  });

  it("gives each gate a HOME and TMPDIR of its own, whatever the last one made of them", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_swap.py": `import os, tempfile

def test_swap():
    home, tmp = os.environ["HOME"], tempfile.gettempdir()
    os.chmod(tmp, 0o777)
    os.rmdir(home)
    os.symlink(tmp, home)
`,
        "tests/test_look.py": `import os, stat, tempfile

def test_look():
    home, tmp = os.environ["HOME"], tempfile.gettempdir()
    ${SEND_OUT}([os.path.islink(home), oct(stat.S_IMODE(os.lstat(home).st_mode)), oct(stat.S_IMODE(os.lstat(tmp).st_mode))])
`,
      },
    );
    expect(outcomes(await runPytest({ cwd, targets: ["tests/test_swap.py"], sandbox }))).toEqual({
      "tests/test_swap.py::test_swap": "passed",
    });
    const [looked] = sentOut(await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox })) as unknown[][];
    expect(looked).toEqual([false, "0o700", "0o700"]);
  });

  it("removes a tree the tests made deeper than a path can name, before the next gate", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_deep.py": `import os

def test_deep():
    os.chdir(os.path.dirname(os.environ["HOME"]))
    for _ in range(600):
        os.mkdir("d" * 10)
        os.chdir("d" * 10)
`,
        "tests/test_look.py": `import os\n\ndef test_look():\n    ${SEND_OUT}(sorted(os.listdir(os.path.dirname(os.environ["HOME"]))))\n`,
      },
    );
    expect(outcomes(await runPytest({ cwd, targets: ["tests/test_deep.py"], sandbox }))).toEqual({
      "tests/test_deep.py::test_deep": "passed",
    });
    const [launcherFolder] = sentOut(await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox })) as string[][];
    expect(launcherFolder).toEqual(["home", "tmp"]);
  });
});

describe("the launcher in the bwrap sandbox", () => {
  it("serves a folder made again at the same path from a sandbox of its own", async ({ expect, onTestFinished }) => {
    const cwd = makePackage({ onTestFinished }, { "tests/test_one.py": "def test_one():\n    pass\n" });
    expect(outcomes(await runPytest({ cwd, targets: [], sandbox: "bwrap" }))).toEqual({ "tests/test_one.py::test_one": "passed" });
    // A sandbox's mount is of the folder it was made with: the old one would still show test_one.
    rmSync(cwd, { recursive: true });
    mkdirSync(join(cwd, "tests"), { recursive: true });
    writeFileSync(join(cwd, "pytest.ini"), "[pytest]\npythonpath = .\n");
    writeFileSync(join(cwd, "tests/test_two.py"), "def test_two():\n    pass\n");
    expect(outcomes(await runPytest({ cwd, targets: [], sandbox: "bwrap" }))).toEqual({ "tests/test_two.py::test_two": "passed" });
  });

  it("leaves the next gate nothing in /tmp or /dev", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_plant.py": `import os

def plant(what, how):
    try:
        how()
        return [what]
    except OSError:
        return []

def replace_null():
    os.unlink("/dev/null")
    with open("/dev/null", "w") as f:
        f.write("planted")

def test_plant():
    done = plant("tmp", lambda: open("/tmp/planted", "w").close())
    done += plant("shm", lambda: os.makedirs("/dev/shm/planted"))
    done += plant("dev", lambda: open("/dev/planted", "w").close())
    done += plant("null", replace_null)
    ${SEND_OUT}(done)
`,
        "tests/test_look.py": `import os

def test_look():
    with open("/dev/null") as f:
        null = f.read()
    ${SEND_OUT}(sorted(os.listdir("/tmp")), sorted(os.listdir("/dev/shm")), null, os.path.exists("/dev/planted"))
`,
      },
    );
    // What bubblewrap's /dev and /tmp let a gate do; each must be gone for the next one. /dev/null is a mount bubblewrap
    // made of the host's device: it cannot be replaced.
    expect(sentOut(await runPytest({ cwd, targets: ["tests/test_plant.py"], sandbox: "bwrap" }))).toEqual([["tmp", "shm", "dev"]]);
    const [tmp, shm, devNull, planted] = sentOut(await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox: "bwrap" })) as [
      string[],
      string[],
      string,
      boolean,
    ];
    // Only what was planted: the folders bubblewrap made to mount the package and the private folder on stay, when they
    // live under /tmp or /dev/shm (npm test's own temporary folder may be on /dev/shm: scripts/test-scratch.mjs).
    expect(tmp.filter((name) => name.startsWith("planted"))).toEqual([]);
    expect(shm.filter((name) => name.startsWith("planted"))).toEqual([]);
    expect(devNull).toBe("");
    expect(planted).toBe(false);
  });

  it("keeps the folders it hides empty: they are read-only", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_write.py": `def test_write():
    refused = []
    for folder in ("/run", "/opt", "/proc", "/srv"):
        try:
            open(folder + "/planted", "w").close()
        except OSError:
            refused.append(folder)
    ${SEND_OUT}(refused)
`,
      },
    );
    expect(sentOut(await runPytest({ cwd, targets: ["tests/test_write.py"], sandbox: "bwrap" }))).toEqual([
      ["/run", "/opt", "/proc", "/srv"],
    ]);
  });

  it.for(["/tmp", "/dev/shm"])(
    "sees a change deep in %s, below a folder bubblewrap made for a mount",
    async (top, { expect, onTestFinished }) => {
      // The package two levels below a folder of /tmp (or /dev/shm): bubblewrap makes <top>/<folder>/a in the sandbox's own
      // /tmp (or /dev), whichever folder npm test keeps its temporary files in (scripts/test-scratch.mjs).
      const cwd = join(makeTempDir({ onTestFinished }, top), "a", "pkg");
      mkdirSync(join(cwd, "tests"), { recursive: true });
      writeFileSync(join(cwd, "pytest.ini"), "[pytest]\npythonpath = .\n");
      writeFileSync(
        join(cwd, "tests/test_plant.py"),
        `import os\n\ndef test_plant():\n    open(os.path.join(os.getcwd(), "..", "planted"), "w").close()\n`,
      );
      writeFileSync(
        join(cwd, "tests/test_look.py"),
        // Sent out by hand: the package has no module of package-dir.ts's here.
        `import json, os\n\ndef test_look():\n    raise AssertionError("SENT<<" + json.dumps([sorted(os.listdir(".."))]) + ">>SENT")\n`,
      );
      expect(outcomes(await runPytest({ cwd, targets: ["tests/test_plant.py"], sandbox: "bwrap" }))).toEqual({
        "tests/test_plant.py::test_plant": "passed",
      });
      expect(sentOut(await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox: "bwrap" }))).toEqual([["pkg"]]);
    },
  );

  it("gives the tests no kernel keyring to leave a key in for the next gate", async ({ expect, onTestFinished }) => {
    // ctypes is the guard's to refuse in the gate's own interpreter, not in a process it starts.
    const keys = `import ctypes, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
rings = {"user": -4, "user session": -5, "session": -3}
if sys.argv[1] == "plant":
    print(sorted(name for name, ring in rings.items() if libc.syscall(add_key, b"user", b"rpg-forge-planted", b"left", 4, ring) > 0))
else:
    print(sorted(name for name, ring in rings.items() if libc.syscall(keyctl, 10, ring, b"user", b"rpg-forge-planted", 0) > 0))
`;
    const gate = (what: string): string =>
      `import subprocess, sys\n\ndef test_keys():\n    done = subprocess.run([sys.executable, "-c", ${JSON.stringify(keys)}, "${what}"], capture_output=True, text=True)\n    ${SEND_OUT}(done.stdout.strip(), done.stderr[-300:])\n`;
    const cwd = makePackage({ onTestFinished }, { "tests/test_plant.py": gate("plant"), "tests/test_look.py": gate("look") });
    const [planted] = sentOut(await runPytest({ cwd, targets: ["tests/test_plant.py"], sandbox: "bwrap" })) as string[];
    // The seccomp filter refuses every keyring call: nothing is planted, and nothing could be found.
    expect(planted).toBe("[]");
    const [found] = sentOut(await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox: "bwrap" })) as string[];
    expect(found).toBe("[]");
  });
});
