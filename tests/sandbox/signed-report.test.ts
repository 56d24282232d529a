import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { GUARD_EXIT } from "../../src/sandbox/gate-guard-source.js";
import { runPytest } from "../../src/sandbox/pytest.js";
import { makePackage, SANDBOXES, SEND_OUT, sentOut } from "./package-dir.js";

// Attacks too long to read well as strings, one file each, and what they share (attack_kit.py, beside them in the package).
const ATTACK_FILES = join(import.meta.dirname, "attacks");
const ATTACK_KIT = readFileSync(join(ATTACK_FILES, "attack_kit.py"), "utf8");

// The gate believes only rpg-forge's signed report. Each test here is code that games
// the exit code or the JUnit report, as a model rewarded for "make the tests pass" would.

const FAILING = `def test_wrong():
    assert 1 + 1 == 3
`;

describe.concurrent.each(SANDBOXES)("the signed report in the %s sandbox", (sandbox) => {
  it("records each test's outcome, signed, with the exit status and pytest's JUnit report", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_all.py": `import pytest

def test_passes():
    assert True

def test_fails():
    assert False

@pytest.fixture
def broken():
    raise RuntimeError("setup")

def test_errors(broken):
    pass

def test_skips():
    pytest.skip("not here")

@pytest.mark.xfail(reason="known")
def test_expected_to_fail():
    assert False

@pytest.mark.parametrize("n", [1, 2])
def test_cases(n):
    assert n == 1
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_all.py"], sandbox });
    expect(result.exitCode).toBe(1);
    expect(result.report.authentic).toBe(true);
    if (!result.report.authentic) return;
    expect(result.report.exitStatus).toBe(1);
    expect(Object.fromEntries(result.report.outcomes)).toEqual({
      "tests/test_all.py::test_passes": "passed",
      "tests/test_all.py::test_fails": "failed",
      "tests/test_all.py::test_errors": "error",
      "tests/test_all.py::test_skips": "skipped",
      "tests/test_all.py::test_expected_to_fail": "skipped",
      "tests/test_all.py::test_cases[1]": "passed",
      "tests/test_all.py::test_cases[2]": "failed",
    });
    expect(result.junitXml).toContain("test_passes");
    expect(result.tests.map((t) => t.name)).toContain("test_fails");
  });

  it("has no signed report when a test ends the interpreter with os._exit(0)", async ({ expect, onTestFinished }) => {
    const cwd = makePackage({ onTestFinished }, { "tests/test_exit.py": `import os\n\n${FAILING}\ndef test_leave():\n    os._exit(0)\n` });
    const result = await runPytest({ cwd, targets: ["tests/test_exit.py"], sandbox });
    expect(result.exitCode).toBe(0);
    expect(result.report).toEqual({ authentic: false, problem: expect.stringContaining("without rpg-forge's signed report") });
    expect(result.tests).toEqual([]);
  });

  it("ends the gate before the interpreter's exit hooks, so one cannot change its exit code", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      { "tests/test_hook.py": `import atexit, os\n\natexit.register(os._exit, 0)\n\n${FAILING}` },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_hook.py"], sandbox });
    expect(result.exitCode).toBe(1);
    expect(result.report.authentic && Object.fromEntries(result.report.outcomes)).toEqual({ "tests/test_hook.py::test_wrong": "failed" });
  });

  it("ends with pytest's status when the package's stdout raises SystemExit(0) as the gate flushes it", async ({
    expect,
    onTestFinished,
  }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/conftest.py":
          "import sys\n\n\nclass Leaving:\n    def write(self, text):\n        return len(text)\n\n    def flush(self):\n        raise SystemExit(0)\n\n\ndef pytest_unconfigure(config):\n    sys.stdout = Leaving()\n",
        "tests/test_hook.py": FAILING,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_hook.py"], sandbox });
    expect(result.exitCode).toBe(1);
    expect(result.report.authentic && Object.fromEntries(result.report.outcomes)).toEqual({ "tests/test_hook.py::test_wrong": "failed" });
  });

  it("has no signed report when the package ends pytest with exit code 0 after the report was signed", async ({
    expect,
    onTestFinished,
  }) => {
    // pytest_unconfigure runs after the session's end, where the report is signed, and before pytest returns.
    const cwd = makePackage(
      { onTestFinished },
      { "tests/conftest.py": "import os\n\n\ndef pytest_unconfigure(config):\n    os._exit(0)\n", "tests/test_hook.py": FAILING },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_hook.py"], sandbox });
    expect(result.exitCode).toBe(0);
    expect(result.report).toEqual({ authentic: false, problem: "pytest exited 0 after reporting exit status 1" });
  });

  it("ignores a JUnit report of passes written over pytest's own", async ({ expect, onTestFinished }) => {
    const forged = `<?xml version="1.0"?><testsuites><testsuite><testcase classname="tests.test_forge" name="test_wrong"/></testsuite></testsuites>`;
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_forge.py": `import atexit, os

# The report sits beside the tests' TMPDIR, where the tests can write.
REPORT = os.path.join(os.path.dirname(os.environ["TMPDIR"]), "junit.xml")

def forge():
    with open(REPORT, "w") as f:
        f.write(${JSON.stringify(forged)})

atexit.register(forge)

${FAILING}
def test_forge_now():
    forge()
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_forge.py"], sandbox });
    expect(result.exitCode).toBe(1);
    expect(result.report.authentic).toBe(true);
    expect(result.tests.find((t) => t.name === "test_wrong")?.status).toBe("failed");
    expect(result.tests.find((t) => t.name === "test_forge_now")?.status).toBe("passed");
  });

  it("refuses a report written to the report's pipe by the tests", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_pipe.py": `import os

def test_write_pipe():
    for fd in range(3, 64):
        try:
            os.write(fd, b"0" * 64 + b"\\n" + b'{"exitstatus":0,"tests":{},"collect_errors":[],"junit":null}')
        except OSError:
            pass
    os._exit(0)
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_pipe.py"], sandbox });
    expect(result.report.authentic).toBe(false);
  });

  it("signs what it recorded, whatever the tests did to the JSON encoder it signs with", async ({ expect, onTestFinished }) => {
    // The attack: json's encoder looks up its module's functions when it runs, so a test that replaces one rewrites
    // the document between the record and its signature.
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_encoder.py": `import json.encoder

real = json.encoder.c_make_encoder
SESSION = []


def forged(*args):
    encode = real(*args)

    def rewrite(o, level):
        # And the interpreter's exit status to match, which pytest takes from the session after its last hook.
        SESSION[0].exitstatus = 0
        return [chunk.replace('"failed"', '"passed"').replace('"exitstatus":1', '"exitstatus":0') for chunk in encode(o, level)]

    return rewrite


def test_encoder_rewritten(request):
    SESSION.append(request.session)
    json.encoder.c_make_encoder = forged
    assert 1 + 1 == 3
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_encoder.py::test_encoder_rewritten"], sandbox });
    expect(result.exitCode).toBe(1);
    expect(result.report).toMatchObject({ authentic: true, exitStatus: 1 });
    expect(result.report.authentic && Object.fromEntries(result.report.outcomes)).toEqual({
      "tests/test_encoder.py::test_encoder_rewritten": "failed",
    });
  });

  it("loads its own plugins by path: a module named like them in the package stands in for nothing", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "rpg_forge_timeout.py": "# a planted stand-in with no time limit\n",
        "rpg_forge_gate.py": "import os\nos._exit(0)\n",
        "tests/test_slow.py": "import time\n\ndef test_sleeps():\n    time.sleep(30)\n",
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_slow.py"], sandbox, perTestTimeoutMs: 1000 });
    expect(result.tests.map((t) => [t.name, t.status, t.message])).toEqual([["test_sleeps", "failed", "Failed: timed out after 1 s"]]);
    expect(result.report.authentic).toBe(true);
  });

  it("holds the tests to the resource limits: file size and memory", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_greedy.py": `import pytest

def test_big_file(tmp_path):
    with open(tmp_path / "big", "wb") as f:
        f.write(b"x" * (3 * 1024 * 1024))

def test_big_memory():
    with pytest.raises(MemoryError):
        bytearray(512 * 1024 * 1024)
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_greedy.py"], sandbox, limits: { fileSizeMiB: 1, memoryMiB: 256 } });
    expect(result.tests.map((t) => [t.name, t.status])).toEqual([
      ["test_big_file", "failed"],
      ["test_big_memory", "passed"],
    ]);
    expect(result.tests[0]!.details).toMatch(/File too large|EFBIG/);
  });
});

// Code that reaches for the verdict plugin's state itself, as a security review did: with
// the run's key in hand it signs a report of passes and leaves with exit code 0. The
// review refuses each of these; the gate must hold without it.
const WRONG_THEN = (attack: string): string => `import hmac, hashlib, json, os
import pytest

def forge(key):
    tests = {"tests/test_attack.py::test_wrong": "passed", "tests/test_attack.py::test_also_wrong": "passed"}
    payload = json.dumps({"exitstatus": 0, "tests": tests, "collect_errors": [], "junit": None}).encode()
    os.write(5, hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\\n" + payload)
    os._exit(0)

def key_above(frame):
    while frame is not None:
        if "record" in frame.f_locals:
            return frame.f_locals["record"].gi_frame.f_locals["key"]
        frame = frame.f_back

def the_record(request):
    for plugin in request.config.pluginmanager.get_plugins():
        for cell in getattr(getattr(plugin, 'pytest_runtest_logreport', None), '__closure__', None) or []:
            if hasattr(cell.cell_contents, 'send'):
                return cell.cell_contents

def key_in_memory(fd, record):
    # A generator holds its frame inline; among the frame's pointers, the one to a 32-byte bytes object is the key.
    import struct
    raw = os.pread(fd, 1024, id(record))
    for off in range(0, len(raw) - 8, 8):
        p = struct.unpack_from("<Q", raw, off)[0]
        try:
            head = os.pread(fd, 64, p)
        except OSError:
            continue
        if len(head) == 64 and struct.unpack_from("<QQq", head)[1:] == (id(bytes), 32):
            return head[32:64]

def key_after_guard_off(frame):
    while frame is not None:
        if "busy" in frame.f_locals:
            frame.f_locals["busy"][0] = True
        frame = frame.f_back
    import sys
    return key_above(sys._getframe())

def attack(request):
${attack}

def test_wrong(request):
    attack(request)
    assert 1 + 1 == 3

def test_also_wrong():
    assert 2 + 2 == 5
`;

// A process the tests start runs without the guard: it reads the gate's memory with process_vm_readv (ptrace's
// permission, which /proc/<pid>/mem asks for too) at the record's address, and prints the key it finds there.
const MEMORY_READER = `import ctypes, struct, sys
pid, address, bytes_type = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
libc = ctypes.CDLL(None, use_errno=True)
def read(at, n):
    buf = ctypes.create_string_buffer(n)
    local, remote = iovec(ctypes.cast(buf, ctypes.c_void_p), n), iovec(at, n)
    if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) != n:
        raise OSError(ctypes.get_errno(), "process_vm_readv")
    return buf.raw
raw = read(address, 1024)
for off in range(0, len(raw) - 8, 8):
    p = struct.unpack_from("<Q", raw, off)[0]
    try:
        head = read(p, 64)
    except OSError:
        continue
    if struct.unpack_from("<QQq", head)[1:] == (bytes_type, 32):
        print(head[32:64].hex())
        break
`;

/** Each attack, and whether the guard is what stops it (it ends the run) or something else does. */
const ATTACKS: [string, string, "guard" | "verdict"][] = [
  [
    "ctypes' memmove, which raises no audit event when called, on the record's memory",
    "    import ctypes, _hashlib\n    def read(address, n):\n        out = bytes(n)\n        ctypes.memmove(out, address, n)\n        return out\n    raw = read(id(the_record(request)), 1024)\n    words = [int.from_bytes(raw[i:i + 8], 'little') for i in range(0, len(raw), 8)]\n    forge(read(words[words.index(id(_hashlib.hmac_digest)) - 1] + 32, 32))",
    "guard",
  ],
  [
    "_ctypes alone, whose import raises no ctypes event, calling memmove through a function pointer of its own",
    "    import _ctypes, _hashlib\n    class P(_ctypes._SimpleCData):\n        _type_ = 'P'\n    class S(_ctypes._SimpleCData):\n        _type_ = 'L'\n    class Memmove(_ctypes.CFuncPtr):\n        _flags_ = _ctypes.FUNCFLAG_CDECL\n        _restype_ = P\n        _argtypes_ = (P, P, S)\n    def read(address, n):\n        out = bytes(n)\n        Memmove(_ctypes._memmove_addr)(out, address, n)\n        return out\n    raw = read(id(the_record(request)), 1024)\n    words = [int.from_bytes(raw[i:i + 8], 'little') for i in range(0, len(raw), 8)]\n    forge(read(words[words.index(id(_hashlib.hmac_digest)) - 1] + 32, 32))",
    "guard",
  ],
  [
    "a process the tests start, which reads the gate's memory with process_vm_readv",
    `    import subprocess, sys\n    reader = [sys.executable, "-c", ${JSON.stringify(MEMORY_READER)}, str(os.getpid()), str(id(the_record(request))), str(id(bytes))]\n    forge(bytes.fromhex(subprocess.run(reader, capture_output=True, text=True).stdout.strip()))`,
    "verdict",
  ],
  [
    "rebinding the bootstrap's globals",
    "    import __main__ as m\n    m._encode = lambda d: '{}'\n    m._close = lambda fd: None",
    "verdict",
  ],
  [
    "walking frames from a traceback",
    "    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        forge(key_above(e.__traceback__.tb_frame))",
    "guard",
  ],
  ["walking frames from sys._getframe", "    import sys\n    forge(key_above(sys._getframe()))", "guard"],
  [
    "a generator's frame, through the plugin manager",
    "    for plugin in request.config.pluginmanager.get_plugins():\n        for cell in getattr(getattr(plugin, 'pytest_runtest_logreport', None), '__closure__', None) or []:\n            if hasattr(cell.cell_contents, 'gi_frame'):\n                forge(cell.cell_contents.gi_frame.f_locals['key'])",
    "guard",
  ],
  [
    "feeding the recorder through the plugin manager",
    "    for plugin in request.config.pluginmanager.get_plugins():\n        for cell in getattr(getattr(plugin, 'pytest_runtest_logreport', None), '__closure__', None) or []:\n            if hasattr(cell.cell_contents, 'send'):\n                cell.cell_contents.send(('finish', 0))\n                os._exit(0)",
    "guard",
  ],
  [
    "the garbage collector",
    "    import gc\n    for o in gc.get_objects():\n        if getattr(getattr(o, 'gi_code', None), 'co_name', '') == 'recorder':\n            forge(o.gi_frame.f_locals['key'])",
    "guard",
  ],
  ["tracing", "    import sys\n    sys.settrace(lambda frame, event, arg: forge(key_above(frame)))\n    (lambda: None)()", "guard"],
  ["ctypes", "    import ctypes\n    ctypes.pythonapi.Py_IncRef", "guard"],
  [
    "a signal handler, which is handed a frame: it switches the guard off first",
    "    import signal\n    signal.signal(signal.SIGUSR1, lambda signum, frame: forge(key_after_guard_off(frame)))\n    os.kill(os.getpid(), signal.SIGUSR1)",
    "guard",
  ],
  [
    "a signal handler installed with the function the guarded one wraps",
    "    import signal\n    for cell in signal.signal.__closure__ or []:\n        if callable(cell.cell_contents) and not hasattr(cell.cell_contents, 'send'):\n            cell.cell_contents(signal.SIGUSR1, lambda signum, frame: forge(key_after_guard_off(frame)))\n    os.kill(os.getpid(), signal.SIGUSR1)",
    "verdict",
  ],
  [
    "a logging.Formatter walking attributes from a traceback, with no frame of its own",
    "    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        import ast, logging\n        record = logging.makeLogRecord({'e': e})\n        for n in range(1, 80):\n            fmt = '{e.__traceback__.tb_frame' + '.f_back' * n + '.f_locals[record].gi_frame.f_locals[key]}'\n            try:\n                forge(ast.literal_eval(logging.Formatter(fmt, style='{', validate=False).format(record)))\n            except (KeyError, AttributeError):\n                continue",
    "guard",
  ],
  [
    "a worker thread, reading the record's frame",
    "    from concurrent.futures import ThreadPoolExecutor\n    for plugin in request.config.pluginmanager.get_plugins():\n        for cell in getattr(getattr(plugin, 'pytest_runtest_logreport', None), '__closure__', None) or []:\n            if hasattr(cell.cell_contents, 'gi_frame'):\n                frame = ThreadPoolExecutor(1).submit(getattr, cell.cell_contents, 'gi_frame').result()\n                forge(frame.f_locals['key'])",
    "guard",
  ],
  [
    "a worker thread, feeding the recorder",
    "    import threading\n    for plugin in request.config.pluginmanager.get_plugins():\n        for cell in getattr(getattr(plugin, 'pytest_runtest_logreport', None), '__closure__', None) or []:\n            if hasattr(cell.cell_contents, 'send'):\n                t = threading.Thread(target=cell.cell_contents.send, args=(('finish', 0),))\n                t.start()\n                t.join()\n                os._exit(0)",
    "guard",
  ],
  [
    "code compiled under a library's file name",
    "    import logging, sys\n    code = compile('import sys\\nf = sys._getframe()', logging.__file__, 'exec')\n    scope = {}\n    exec(code, scope)\n    forge(key_above(scope['f']))",
    "guard",
  ],
  [
    "a library wrapper calling getattr for it",
    "    import functools\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        forge(key_above(functools.singledispatch(getattr)(e.__traceback__, 'tb_frame')))",
    "guard",
  ],
  [
    "an annotation evaluated by typing",
    "    import typing\n    def f(x: \"__import__('sys')._getframe()\"): pass\n    forge(key_above(typing.get_type_hints(f)['x']))",
    "guard",
  ],
  ["swapping how tests run", "    pytest.Function.runtest = lambda self: None", "verdict"],
  [
    "the verdict plugin's own closure rewritten, so that it calls a test function that swallows everything",
    "    for plugin in request.config.pluginmanager.get_plugins():\n        f = getattr(type(plugin), 'pytest_pyfunc_call', None)\n        for cell in getattr(f, '__closure__', None) or []:\n            if getattr(cell.cell_contents, '__name__', '') == 'pytest_pyfunc_call':\n                cell.cell_contents = lambda pyfuncitem: True",
    "guard",
  ],
  [
    "pluggy's Result swapped for one call, so that the failure is swallowed, and put back before the record looks",
    "    import pluggy._callers as callers\n    real = callers.Result\n    class Fake:\n        def __new__(cls, res, exc):\n            if not isinstance(exc, AssertionError):\n                return real(res, exc)\n            callers.Result = real\n            self = object.__new__(cls)\n            self.excinfo = None\n            return self\n        def get_result(self):\n            return None\n    callers.Result = Fake",
    "verdict",
  ],
  [
    "contextlib patched, so that the capture wrapper around the next test's call swallows its failure",
    "    import contextlib\n    Real = contextlib._GeneratorContextManager\n    class Swallowing(Real):\n        def __exit__(self, t, v, tb):\n            Real.__exit__(self, t, v, tb)\n            return isinstance(v, AssertionError)\n    contextlib._GeneratorContextManager = lambda f, a, k: (Swallowing if f.__name__ == 'item_capture' and a[1:2] == ('call',) else Real)(f, a, k)",
    "verdict",
  ],
  [
    "the next test's item given a class of the package's own, whose runtest is pytest's code that does nothing",
    "    from _pytest.nodes import Node\n    class Quiet(pytest.Function):\n        runtest = Node.setup\n    for i in request.session.items:\n        if i is not request.node:\n            i.__class__ = Quiet",
    "verdict",
  ],
  [
    "the next test given an object that carries its function as __func__ and does nothing when called",
    "    class Impostor:\n        def __init__(self, real):\n            self.__func__ = real\n        def __call__(self, *a, **k):\n            return None\n    for i in request.session.items:\n        if i is not request.node:\n            i._obj = Impostor(i.obj)",
    "verdict",
  ],
  [
    "the next test given another function, and the name it is checked against with it",
    "    def passing():\n        pass\n    other = [i for i in request.session.items if i.name == 'test_also_wrong'][0]\n    other._obj = passing\n    other.originalname = 'passing'",
    "verdict",
  ],
  [
    "a test renamed, a passing item added under its id, and pytest's count of failures reset",
    "    def passing_last(request):\n        request.session.testsfailed = 0\n    request.session.items.append(pytest.Function.from_parent(request.node.parent, name='test_wrong', callobj=passing_last, originalname='passing_last'))\n    request.node._nodeid = 'tests/test_attack.py::junk'",
    "verdict",
  ],
  [
    "a failure's report rewritten as a pass by the object its repr_failure returns, before the verdict plugin reads it",
    "    state = {'config': request.config, 'session': request.session}\n    class Evil:\n        def __getattr__(self, name):\n            for r in state['config'].pluginmanager.get_plugin('terminalreporter').stats.get('failed', []):\n                if r.when == 'call':\n                    r.outcome = 'passed'\n            state['session'].testsfailed = 0\n        def __str__(self):\n            self.__getattr__('')\n            return 'evil'\n        def toterminal(self, tw):\n            tw.line('evil')\n    request.node.repr_failure = lambda excinfo, style=None: Evil()",
    "verdict",
  ],
  [
    "the process's memory read through /proc/self/mem, opened by a relative name from a directory descriptor",
    "    fd = os.open('mem', os.O_RDONLY, dir_fd=os.open('/proc/self', os.O_RDONLY))\n    forge(key_in_memory(fd, the_record(request)))",
    "verdict",
  ],
  [
    "the process's memory opened by a path in bytes",
    "    forge(key_in_memory(os.open(b'/proc/self/mem', os.O_RDONLY), the_record(request)))",
    "verdict",
  ],
  [
    "the process's memory opened through a link",
    "    import tempfile\n    link = os.path.join(tempfile.mkdtemp(), 'm')\n    os.symlink('/proc/self/mem', link)\n    forge(key_in_memory(os.open(link, os.O_RDONLY), the_record(request)))",
    "verdict",
  ],
  [
    "the process's memory opened by a relative name from /proc/self as the working directory",
    "    os.chdir('/proc/self')\n    forge(key_in_memory(os.open('mem', os.O_RDONLY), the_record(request)))",
    "verdict",
  ],
  [
    "a plugin of its own whose pytest_pyfunc_call runs no test",
    "    class Skip:\n        @pytest.hookimpl(tryfirst=True)\n        def pytest_pyfunc_call(self, pyfuncitem):\n            return True\n    request.config.pluginmanager.register(Skip())",
    "guard",
  ],
  [
    "a hook implementation rewritten in place",
    "    for hook in request.config.pluginmanager.hook.pytest_pyfunc_call.get_hookimpls():\n        hook.function = lambda pyfuncitem: True",
    "guard",
  ],
  [
    "pytest's runner rebound, so that no test is called",
    "    import _pytest.runner as runner\n    real = vars(runner.CallInfo)['from_call']\n    runner.CallInfo.from_call = classmethod(lambda cls, func, when, reraise=None: real.__func__(cls, lambda: None, when, reraise))",
    "guard",
  ],
  [
    "pytest's runner rebound by a finalizer for the next test alone, the rebinding undone before the record looks",
    "    import functools\n    import _pytest.runner as runner\n    real = vars(runner.CallInfo)['from_call']\n    def fake(cls, func, when, reraise=None):\n        if when != 'call':\n            return real.__func__(cls, func, when, reraise)\n        runner.CallInfo.from_call = real\n        return real.__func__(cls, lambda: None, when, reraise)\n    request.addfinalizer(functools.partial(setattr, runner.CallInfo, 'from_call', classmethod(fake)))",
    "guard",
  ],
  [
    "the next test given another function",
    "    for item in request.session.items:\n        if item.name == 'test_also_wrong':\n            item.obj = dict",
    "verdict",
  ],
  [
    "the next test given another function by a finalizer, with no code of the package on the stack",
    "    import functools\n    for item in request.session.items:\n        if item.name == 'test_also_wrong':\n            request.addfinalizer(functools.partial(setattr, item, '_obj', dict))",
    "verdict",
  ],
  [
    "an audit hook of its own, handed the record's frame when the record checks its stack",
    "    import sys\n    def watch(event, args):\n        for arg in args:\n            if 'digest' in getattr(arg, 'f_locals', {}):\n                forge(arg.f_locals['key'])\n    sys.addaudithook(watch)",
    "guard",
  ],
  [
    "the built-in id replaced, so that the guard no longer knows the record, then a worker thread",
    "    import builtins\n    from concurrent.futures import ThreadPoolExecutor\n    records = []\n    for plugin in request.config.pluginmanager.get_plugins():\n        for cell in getattr(getattr(plugin, 'pytest_runtest_logreport', None), '__closure__', None) or []:\n            if hasattr(cell.cell_contents, 'send'):\n                records.append(cell.cell_contents)\n    pool = ThreadPoolExecutor(1)\n    builtins.id = hash\n    frame = pool.submit(getattr, records[0], 'gi_frame').result()\n    forge(frame.f_locals['key'])",
    "guard",
  ],
];

// The same for tests written with unittest, which pytest runs through unittest's own machinery.
const UNITTEST_WRONG_THEN = (attack: string): string => `import unittest

def attack(case):
${attack}

class TestAttack(unittest.TestCase):
    def test_wrong(self):
        attack(self)
        self.assertEqual(1 + 1, 3)

    def test_zz_also_wrong(self):
        self.assertEqual(2 + 2, 5)
`;

const UNITTEST_ATTACKS: [string, string][] = [
  ["unittest's TestCase.run replaced, so that no later test runs", "    unittest.TestCase.run = lambda self, result=None: None"],
  [
    "a unittest test discarding its own failures through its result, which is pytest's item",
    "    case._outcome.result.addFailure = lambda *a, **k: None\n    case._outcome.result.addError = lambda *a, **k: None",
  ],
  [
    "unittest failures filed on the items into a hole that keeps nothing",
    "    class Hole:\n        def append(self, e):\n            pass\n        def __bool__(self):\n            return False\n    for item in case._outcome.result.session.items:\n        item._excinfo = Hole()",
  ],
  [
    "a unittest test clearing the failures filed on its item, once they are filed",
    "    case.addCleanup(lambda: case._outcome.result._excinfo.clear())",
  ],
];

// Whole test files, from the third review: code that gets called back where the guard or the record do not look.
const FILE_ATTACKS: [string, string][] = [
  ...(
    [
      ["a core dump of a forked copy of the gate, read back from the file it wrote", "core-dump.py"],
      ["bytecode of its own, whose LOAD_CONST reads past its table, through marshal", "crafted-bytecode.py"],
      ["bytecode of its own in a sourceless module the import system loads", "sourceless-module.py"],
      ["forked copies that go on as if each test had returned, the last one signing", "forked-signer.py"],
      ["the import system's own helper, called to unmarshal bytecode of its own", "import-system-unmarshal.py"],
      ["a sourceless loader of the import system, fed a file not named .pyc", "sourceless-loader-fed.py"],
      ["code.replace run by a pool's worker thread, with no frame of the package on its stack", "worker-thread-code-replace.py"],
      // The fifth review: frames from a pool's worker, taken while code of the package ran inside the record.
      ["sys._current_frames from a pool's worker, called while the record reads the plugin manager", "current-frames-in-record.py"],
      ["a traceback's tb_frame read by a pool's worker, while the record reads the plugin manager", "tb-frame-in-record.py"],
      [
        "sys._current_frames from a pool's worker, called by the test module's __getattr__ as the record looks the test up",
        "module-getattr-in-record.py",
      ],
      ["the record fed by a finalizer that runs with no frame of the package on the stack", "finalizer-fed-record.py"],
      ["source of its own run by exec from a finalizer, which asks the collector for the record's locals", "finalizer-exec.py"],
      // Frames handed out that lead to the record's: through a library helper that calls what it is handed, or later,
      // through the f_back of a frame that ran inside the record (its traceback kept), read by pytest's finalizer loop.
      ["sys._getframe handed to the import system's helper, called while the record looks the test up", "dispatcher-frames-in-record.py"],
      ["the traceback of an exception raised while the record looked the test up, its frame read later", "kept-traceback-of-record.py"],
      ["the same traceback's frame read by pytest's own finalizer loop through C alone", "finalizer-kept-traceback.py"],
      // The sixth review, second round: any frame reached the gate's own, whose closure cells held the guard's way out;
      // code of no file, or of a file a loader named after a library's, passed for the library's; tracing from the library.
      ["the gate's frame found through inspect.stack from a finalizer, its cells holding the way out rewritten", "gate-frame-cells.py"],
      [
        "a generator's frame from pytest's traceback objects, driven by C from a finalizer, the generator resumed in the record",
        "generator-frame-resumed-in-record.py",
      ],
      ["a generator's frame read by a dataclass's generated __init__, its field named gi_frame", "dataclass-field-gi-frame.py"],
      ["a generator's frame read by a forward reference that pytest's finalizer loop evaluates", "forward-reference-gi-frame.py"],
      ["a generator's frame read by a module a loader compiled under the standard library's name", "loader-library-name-gi-frame.py"],
      ["sys.settrace from a module a loader compiled under the standard library's name, run by the record", "loader-library-filename.py"],
      [
        "the import system's own loader, patched for a moment, compiling the package's source under a library's name",
        "patched-source-loader.py",
      ],
      [
        "profile.Profile.runcall made the test module's __getattr__, so that the record sets a profiler of the package's",
        "profile-runcall-in-record.py",
      ],
      ["sys.settrace from a forward reference that pytest's finalizer loop evaluates", "settrace-from-finalizer.py"],
      [
        "a handler installed through a second instance of the _signal module, handed the frames a timer interrupts",
        "fresh-signal-module.py",
      ],
      // The seventh review: the guard's built-ins looked up in __main__'s globals; suspended generators' frames.
      ["a built-in the guard looks up bound in __main__'s globals, run while the guard is busy", "main-globals-builtin.py"],
      [
        "a key of __main__'s globals whose hash is a built-in's name, its __eq__ run while the guard is busy",
        "main-globals-colliding-key.py",
      ],
      ["a suspended generator's frame from asyncio's Task.get_stack, driven by C from a finalizer", "task-stack-generator-frame.py"],
      [
        "the same for the standard library's heapq.merge, whose key function the record's resumption runs",
        "task-stack-library-generator.py",
      ],
      // The eighth review: the verdict plugin's own hooks called by pytest's finalizer loop, C partials of its methods.
      [
        "the verdict plugin's hooks, called from pytest's finalizer loop with a report of passes, signing early",
        "finalizer-fed-verdict-hooks.py",
      ],
      [
        "a unittest test passed by the verdict's runtest_call wrapper, stepped twice from pytest's finalizer loop",
        "finalizer-fed-unittest.py",
      ],
      [
        "the record's baseline of pytest taken again from a finalizer, after a plugin of the package's was registered",
        "finalizer-refed-start.py",
      ],
      // The ninth review: the test function swapped after the record checked it; a unittest TestCase's own run().
      ["the function swapped by an xfail condition's __bool__ between the record's look and pytest's call", "xfail-condition-swap.py"],
      ["the function swapped by a log handler's __eq__ as pytest's logging plugin starts the call", "log-handler-eq-swap.py"],
      ["a unittest TestCase whose own run() files a success without calling the test", "unittest-run-override.py"],
    ] as const
  ).map(([name, file]): [string, string] => [name, readFileSync(join(ATTACK_FILES, file), "utf8")]),
  [
    "a second word on a test's return, from a library entry that calls the verdict plugin with no frame of the package's own",
    'import collections, contextlib, functools\n\nReal = contextlib._GeneratorContextManager\n\n\ndef harmless(*args, **kwargs):\n    return None\n\n\nclass Swallowing(Real):\n    def __init__(self, f, a, k):\n        self.item = a[2]\n        Real.__init__(self, f, a, k)\n\n    def __exit__(self, t, v, tb):\n        Real.__exit__(self, t, v, tb)\n        if not isinstance(v, AssertionError):\n            return False\n        item = self.item\n        hook = [p for p in item.config.pluginmanager.get_plugins() if type(p).__name__ == "Verdict"][0].pytest_pyfunc_call\n        real = item._obj\n        item._obj = harmless\n        try:\n            # namedtuple is a "safe entry": the guard stops at the innermost package frame and finds its callee is\n            # collections/__init__.py:namedtuple. The callable_iterator (C) calls the verdict\'s hook with no frame of ours.\n            collections.namedtuple("X", iter(functools.partial(hook, item), True))\n        finally:\n            item._obj = real\n        return True\n\n\ncontextlib._GeneratorContextManager = lambda f, a, k: (Swallowing if f.__name__ == "item_capture" and a[1:2] == ("call",) else Real)(f, a, k)\n\n\ndef test_wrong():\n    assert 1 + 1 == 3\n\n\ndef test_also_wrong(tmp_path):\n    assert 2 + 2 == 5\n',
  ],
  [
    "a signal handler installed through a library entry, which switches the guard off and reads the key",
    'import collections, functools, hashlib, hmac, json, os, signal, sys\n\nstate = {"busy": None, "key": None, "hits": 0, "names": {}}\n\n\ndef handler(signum, frame):\n    state["hits"] += 1\n    if state["busy"] is not None:\n        return\n    n = frame.f_code.co_name\n    state["names"][n] = state["names"].get(n, 0) + 1\n    f = frame\n    while f is not None:\n        if f.f_code.co_name == "guard" and "busy" in f.f_locals:\n            state["busy"] = f.f_locals["busy"]\n            state["busy"][0] = True  # the guard returns at once from now on\n            return\n        f = f.f_back\n\n\ndef forge(key):\n    tests = {"tests/test_attack.py::test_wrong": "passed", "tests/test_attack.py::test_also_wrong": "passed"}\n    payload = json.dumps({"exitstatus": 0, "tests": tests, "collect_errors": [], "junit": None}).encode()\n    os.write(5, hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\\n" + payload)\n    os._exit(0)\n\n\ndef test_wrong():\n    # Installed through namedtuple (a "safe entry"): the guarded signal.signal\'s stack check passes.\n    try:\n        collections.namedtuple("X", iter(functools.partial(signal.signal, signal.SIGVTALRM, handler), handler))\n    except ValueError:\n        pass\n    signal.setitimer(signal.ITIMER_VIRTUAL, 0.00002, 0.00002)\n    for _ in range(3000):\n        if state["busy"] is not None:\n            break\n        try:\n            os.stat  # cheap\n            open("/nonexistent-redteam")  # every open runs the guard\'s Python code\n        except OSError:\n            pass\n    signal.setitimer(signal.ITIMER_VIRTUAL, 0, 0)\n    if state["busy"] is not None:\n        f = sys._getframe()\n        while f is not None:\n            if "record" in f.f_locals and hasattr(f.f_locals["record"], "gi_frame"):\n                forge(f.f_locals["record"].gi_frame.f_locals["key"])\n            f = f.f_back\n    assert 1 + 1 == 3, (state[\'hits\'], state[\'names\'])\n\n\ndef test_also_wrong():\n    assert 2 + 2 == 5\n',
  ],
  [
    "os.lstat replaced, so that the guard's own look at a path runs the package's code while it is busy",
    'import hashlib, hmac, json, os, sys\n\nreal_lstat = os.lstat\n\n\ndef forge(key):\n    tests = {"tests/test_attack.py::test_wrong": "passed", "tests/test_attack.py::test_also_wrong": "passed"}\n    payload = json.dumps({"exitstatus": 0, "tests": tests, "collect_errors": [], "junit": None}).encode()\n    os.write(5, hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\\n" + payload)\n    os._exit(0)\n\n\ndef evil_lstat(path, *a, **k):\n    # Called by os.path.realpath inside the guard, while busy[0] is True: the guard returns at once on every event.\n    f = sys._getframe()\n    while f is not None:\n        if "record" in f.f_locals and hasattr(f.f_locals["record"], "gi_frame"):\n            os.lstat = real_lstat\n            forge(f.f_locals["record"].gi_frame.f_locals["key"])\n        f = f.f_back\n    return real_lstat(path, *a, **k)\n\n\ndef test_wrong():\n    os.lstat = evil_lstat\n    try:\n        open("/tmp/redteam3-nonexistent")  # package on the stack: the guard calls reaches_memory -> realpath -> os.lstat\n    except OSError:\n        pass\n    os.lstat = real_lstat\n    assert 1 + 1 == 3\n\n\ndef test_also_wrong():\n    assert 2 + 2 == 5\n',
  ],
];

describe.concurrent.each(SANDBOXES)("the gate's guard in the %s sandbox", (sandbox) => {
  const run = async (attack: string, test: Pick<TestContext, "onTestFinished">) => {
    const cwd = makePackage(test, { "tests/test_attack.py": WRONG_THEN(attack) });
    return runPytest({ cwd, targets: ["tests/test_attack.py"], sandbox });
  };
  const neverPassed = (result: Awaited<ReturnType<typeof runPytest>>): boolean =>
    !result.report.authentic || [...result.report.outcomes.values()].every((o) => o !== "passed");

  it.for(ATTACKS)("holds against %s", async ([, attack, stoppedBy], context) => {
    const result = await run(attack, context);
    context.expect(neverPassed(result)).toBe(true);
    if (stoppedBy === "guard") context.expect(result.exitCode).toBe(GUARD_EXIT);
  });

  it.for(FILE_ATTACKS)("holds against %s", async ([, file], context) => {
    const cwd = makePackage(context, { "tests/test_attack.py": file, "attack_kit.py": ATTACK_KIT });
    const result = await runPytest({ cwd, targets: ["tests/test_attack.py"], sandbox });
    context.expect(neverPassed(result)).toBe(true);
  });

  it.for(UNITTEST_ATTACKS)("holds against %s", async ([, attack], context) => {
    const cwd = makePackage(context, { "tests/test_attack.py": UNITTEST_WRONG_THEN(attack) });
    const result = await runPytest({ cwd, targets: ["tests/test_attack.py"], sandbox });
    context.expect(neverPassed(result)).toBe(true);
  });

  it("lets ordinary code log, format tracebacks and build enums, namedtuples and dataclasses", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_ordinary.py": `import collections, dataclasses, enum, logging, traceback, typing, warnings

log = logging.getLogger("pkg")

def test_ordinary(caplog):
    log.warning("careful")
    try:
        1 / 0
    except ZeroDivisionError:
        log.exception("failed")
        assert "ZeroDivisionError" in traceback.format_exc()
    Point = collections.namedtuple("Point", "x y")
    Colour = enum.Enum("Colour", "RED GREEN")
    Pair = typing.NamedTuple("Pair", [("a", int)])
    Later = typing.List["Point"]
    import ast
    assert isinstance(ast.parse("x = 1"), ast.Module) and Later is not None
    @dataclasses.dataclass
    class Box:
        size: int = dataclasses.field(default=1)
    warnings.warn("deprecated", DeprecationWarning)
    assert Point(1, 2).x == 1 and Colour.RED.value == 1 and Pair(1).a == 1 and Box().size == 1
    assert "careful" in caplog.text

import pytest

@pytest.mark.skipif("sys.platform == 'no such platform'", reason="evaluated by pytest")
def test_conditional():
    assert typing.get_type_hints(test_conditional) == {}
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_ordinary.py"], sandbox });
    expect(result.report.authentic && Object.fromEntries(result.report.outcomes)).toEqual({
      "tests/test_ordinary.py::test_ordinary": "passed",
      "tests/test_ordinary.py::test_conditional": "passed",
    });
  });

  it("lets no handler but its timeout's be installed, even by pytest's own finalizer loop", async ({ expect, onTestFinished }) => {
    // A handler is handed the frame it interrupted, with no audit event; a C callable installed from a finalizer keeps it.
    const attack =
      "    import functools, signal\n    request.addfinalizer(functools.partial(signal.signal, signal.SIGUSR1, {}.__setitem__))";
    const cwd = makePackage({ onTestFinished }, { "tests/test_attack.py": `def test_wrong(request):\n${attack}\n    assert 1 + 1 == 3\n` });
    const result = await runPytest({ cwd, targets: ["tests/test_attack.py"], sandbox });
    expect(result.exitCode).toBe(GUARD_EXIT);
    expect(result.output).toContain("rpg-forge: something other than rpg-forge's timeout installed a signal handler");
  });

  it("records honest tests of every kind as pytest ran them, one that returns a value included", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_kinds.py": `import pytest, unittest

@pytest.fixture
def two():
    return 2

def test_plain(two):
    assert two + 2 == 4

@pytest.mark.parametrize("n", [1, 2])
def test_param(n, two):
    assert n * two == 2 * n

class TestK:
    def test_method(self, two):
        assert two == 2

class U(unittest.TestCase):
    def test_u(self):
        self.assertEqual(1, 1)

@pytest.mark.xfail(reason="known")
def test_xf():
    assert 0

def test_fails():
    assert 0

def test_returns():
    return 1
`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_kinds.py"], sandbox });
    expect(result.report.authentic && Object.fromEntries(result.report.outcomes)).toEqual({
      "tests/test_kinds.py::test_plain": "passed",
      "tests/test_kinds.py::test_param[1]": "passed",
      "tests/test_kinds.py::test_param[2]": "passed",
      "tests/test_kinds.py::TestK::test_method": "passed",
      "tests/test_kinds.py::U::test_u": "passed",
      "tests/test_kinds.py::test_xf": "skipped",
      "tests/test_kinds.py::test_fails": "failed",
      "tests/test_kinds.py::test_returns": "passed",
    });
  });

  it("says which line of the package reached for the interpreter's internals", async ({ expect, onTestFinished }) => {
    const result = await run("    import sys\n    sys._getframe()", { onTestFinished });
    expect(result.exitCode).toBe(GUARD_EXIT);
    expect(result.output).toMatch(/rpg-forge: tests\/test_attack\.py:\d+ reached for the interpreter's internals \(sys\._getframe\)/);
  });

  it("puts none of its own code on disk for a process left behind to rewrite", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_look.py": `import os\n\ndef test_look():\n    private = os.path.dirname(os.environ["TMPDIR"])\n    ${SEND_OUT}(sorted(os.listdir(private)))\n`,
      },
    );
    const result = await runPytest({ cwd, targets: ["tests/test_look.py"], sandbox });
    expect(sentOut(result)).toEqual([["home", "tmp"]]);
  });
});
