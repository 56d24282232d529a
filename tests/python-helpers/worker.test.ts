import { describe, expect, it } from "vitest";
import { runPythonScript } from "../../src/python-helpers/run-script.js";
import { findPython } from "../../src/sandbox/python.js";

const python = await findPython();

/** What a script run as `python -I -c` sees and gives, through the long-lived workers. */
describe("rpg-forge's helper scripts in a worker", () => {
  it("give each call its own stdin and stdout, bytes for bytes, and a fresh namespace", async () => {
    const echo = "import sys\nseen = globals().get('seen', 0)\nsys.stdout.write(sys.stdin.read()[::-1] + str(seen))\nseen = 1\n";
    expect(await runPythonScript(python, echo, "abc")).toBe("cba0");
    // A second call of the same script starts from nothing: what the first one set is gone.
    expect(await runPythonScript(python, echo, "é€😀")).toBe("😀€é0");
    const bytes = "import sys, json\nprint(json.dumps(list(sys.stdin.buffer.read())))\n";
    expect(JSON.parse(await runPythonScript(python, bytes, "é"))).toEqual([0xc3, 0xa9]);
    // A lone surrogate reaches python as UTF-8 would carry it from a pipe: replaced, not a crash.
    expect(JSON.parse(await runPythonScript(python, bytes, "\uD800"))).toEqual([0xef, 0xbf, 0xbd]);
  });

  it("answer many calls at once, each its own", async () => {
    const square = "import sys\nn = int(sys.stdin.read())\nprint(n * n)\n";
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => runPythonScript(python, square, String(i))));
    expect(answers.map((a) => Number(a))).toEqual(Array.from({ length: 40 }, (_, i) => i * i));
  });

  it("start each call with the collector on, and collect what a script that turned it off left behind", async () => {
    // A cycle made with the collector off is garbage only a collection frees; the script keeps a weak reference to see it go.
    const leave = [
      "import gc, sys, weakref",
      "gc.disable()",
      "class Node: pass",
      "a = Node(); b = Node(); a.other = b; b.other = a",
      "sys.modules['__probe__'] = weakref.ref(a)",
      "del a, b",
      "print(gc.isenabled())",
    ].join("\n");
    const look = "import gc, sys\nprint(gc.isenabled(), sys.modules.pop('__probe__')() is None)\n";
    // One call after the other, so both go to the same idle worker.
    expect(await runPythonScript(python, leave)).toBe("False\n");
    expect(await runPythonScript(python, look)).toBe("True True\n");
  });

  it("report an exit status and an exception as a failed call, as a process would, and go on", async () => {
    await expect(runPythonScript(python, "import sys\nsys.exit(3)\n")).rejects.toMatchObject({
      message: expect.stringContaining("exit 3"),
    });
    await expect(runPythonScript(python, "raise ValueError('nope')\n")).rejects.toMatchObject({
      message: expect.stringMatching(/exit 1\): ValueError: nope$/),
    });
    expect(await runPythonScript(python, "import sys\nsys.exit(0)\n")).toBe("");
    expect(await runPythonScript(python, "print('still here')\n")).toBe("still here\n");
  });

  it("lose only the call whose script ends the interpreter; the next call gets a new worker", async () => {
    const calls = [
      runPythonScript(python, "import os\nos._exit(7)\n"),
      ...Array.from({ length: 6 }, (_, i) => runPythonScript(python, `print(${i})\n`)),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled[0]).toMatchObject({ status: "rejected", reason: { message: expect.stringContaining("exit 7") } });
    expect(settled.slice(1).map((s) => (s.status === "fulfilled" ? s.value : "failed"))).toEqual([
      "0\n",
      "1\n",
      "2\n",
      "3\n",
      "4\n",
      "5\n",
    ]);
  });

  it("names a python that does not start", async () => {
    await expect(runPythonScript("/nonexistent/python3", "print(1)\n")).rejects.toMatchObject({ code: "SANDBOX_NO_PYTHON" });
  });

  it("fail a call whose script writes past its answer, and go on with a new worker", async () => {
    await expect(runPythonScript(python, "import sys\nsys.__stdout__.write('junk\\n')\nsys.__stdout__.flush()\n")).rejects.toMatchObject({
      message: expect.stringContaining("the helper wrote outside its answer: junk"),
    });
    expect(await runPythonScript(python, "print('fine')\n")).toBe("fine\n");
  });
});
