import { beforeAll, describe, expect, it } from "vitest";
import { reviewImplementation, reviewTests } from "../../src/review/reply-review.js";
import { findPython } from "../../src/sandbox/python.js";
import { py, rulesOf } from "./review-helpers.js";

let python: string;
beforeAll(async () => {
  python = await findPython();
});

const tests = (code: string) => reviewTests(python, code);
const implementation = (code: string, imports = "") => reviewImplementation(python, code, imports);

describe("import-time code in tests", () => {
  it("refuses a decorator that ends the process with os._exit(0)", async () => {
    const reply = py`
      import os
      import pytest
      from statkit.stats import mean

      @pytest.mark.parametrize("xs", [os._exit(0)])
      def test_mean_of_one(xs):
          assert mean(xs) == 1
    `;
    expect(rulesOf(await tests(reply))).toEqual(expect.arrayContaining(["decorator-arguments", "process-exit"]));
  });

  it("refuses a default argument that calls os._exit(0)", async () => {
    const reply = py`
      import os
      from statkit.stats import mean

      def test_mean_of_one(xs=os._exit(0)):
          assert mean([1]) == 1
    `;
    expect(rulesOf(await tests(reply))).toEqual(expect.arrayContaining(["default-not-literal", "process-exit"]));
  });

  it("refuses a decorator of its own that sets _pytest's Function.runtest to a no-op", async () => {
    const reply = py`
      import _pytest.python
      from statkit.stats import mean

      def mean_register(fn):
          _pytest.python.Function.runtest = lambda self: None
          return fn

      @mean_register
      def test_mean_of_one():
          assert mean([1]) == 1
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(expect.arrayContaining(["decorator-not-allowed", "interpreter-access"]));
    expect(result.ok ? "" : result.reason).toContain('line 8: decorator "mean_register" is not allowed');
  });

  it("refuses a class Test...: whose body registers an exit hook", async () => {
    const reply = py`
      import atexit
      import os
      from statkit.stats import mean

      class TestMean:
          atexit.register(os._exit, 0)

          def test_one(self):
              assert mean([1]) == 1
    `;
    expect(rulesOf(await tests(reply))).toEqual(expect.arrayContaining(["class-body-statement", "process-exit"]));
  });

  it("refuses control flow in a class body", async () => {
    const reply = py`
      class TestMean:
          for _ in range(1):
              LIMIT = 3

          def test_one(self):
              assert LIMIT == 3
    `;
    expect(rulesOf(await tests(reply))).toEqual(["class-body-statement"]);
  });

  it("refuses a class whose base is computed by a call, and a metaclass of its own", async () => {
    const reply = py`
      from statkit.stats import mean

      class MeanMeta(type):
          def __init__(cls, *args):
              super().__init__(*args)

      class TestMean(mean_base(), metaclass=MeanMeta):
          def test_one(self):
              assert mean([1]) == 1
    `;
    expect(rulesOf(await tests(reply))).toEqual(["class-header"]);
  });

  it("refuses an annotation that runs code when the function is defined", async () => {
    const reply = py`
      from statkit.stats import mean

      def test_mean(xs: mean_setup() = None) -> None:
          assert mean([1]) == 1
    `;
    expect(rulesOf(await tests(reply))).toEqual(["annotation-not-type"]);
  });

  it("refuses a string annotation holding code, which typing.get_type_hints would evaluate", async () => {
    const code = py`
      def mean(xs: "__import__('os')._exit(0)") -> float:
          return sum(xs) / len(xs)
    `;
    expect(rulesOf(await implementation(code))).toEqual(["annotation-not-type"]);
  });

  it("refuses a parametrize list built by a comprehension or by calling the reply's own helper", async () => {
    const reply = py`
      import pytest
      from statkit.stats import mean

      @pytest.mark.parametrize("xs", [[i] for i in range(3)])
      def test_mean(xs):
          assert mean(xs) == xs[0]

      @pytest.mark.parametrize("xs", mean_cases())
      def test_mean_cases(xs):
          assert mean(xs)
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["decorator-arguments"]);
    expect(result.ok ? [] : result.findings.map((f) => f.line)).toEqual([4, 8]);
  });

  it("refuses a module-level statement that monkeypatches the implementation", async () => {
    const reply = py`
      import statkit.stats

      statkit.stats.mean = lambda xs: 1.0

      def test_mean():
          assert statkit.stats.mean([1]) == 1
    `;
    expect(rulesOf(await tests(reply))).toEqual(["top-level-statement"]);
  });
});

describe("reaching into pytest or the interpreter", () => {
  it.each([
    ["sys._getframe", "import sys\n\ndef test_mean():\n    assert sys._getframe(1).f_locals['x'] == 1\n"],
    ["__globals__ through getattr", "def test_mean():\n    g = getattr(test_mean, '__globals__')\n    assert g\n"],
    ["sys.modules", "import sys\n\ndef test_mean():\n    assert sys.modules['statkit.stats'].mean([1]) == 1\n"],
    ["inspect", "import inspect\n\ndef test_mean():\n    assert inspect.stack()\n"],
    ["eval", "def test_mean():\n    assert eval('1') == 1\n"],
    ["__import__", "def test_mean():\n    assert __import__('statkit').stats\n"],
    ["__subclasses__", "def test_mean():\n    assert ().__class__.__base__.__subclasses__()\n"],
    ["the plugin manager", "def test_mean(request):\n    request.config.pluginmanager.unregister(name='junitxml')\n    assert 1\n"],
    ["importlib under an alias", "import importlib as il\n\ndef test_mean():\n    assert il.import_module('statkit')\n"],
    ["builtins", "from builtins import exec as run\n\ndef test_mean():\n    run('x = 1')\n    assert 1\n"],
    ["gc", "import gc\n\ndef test_mean():\n    assert gc.get_referrers(1)\n"],
    ["ctypes", "import ctypes\n\ndef test_mean():\n    assert ctypes.pythonapi\n"],
    ["globals()", "def test_mean():\n    globals()['mean'] = lambda xs: 1\n    assert 1\n"],
    [
      "a traceback's frame",
      "def test_mean():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        assert e.__traceback__.tb_frame.f_back\n",
    ],
    ["a string naming __globals__", "import operator\n\ndef test_mean():\n    assert operator.attrgetter('__globals__')(test_mean)\n"],
  ])("refuses %s", async (_what, reply) => {
    expect(rulesOf(await tests(reply))).toContain("interpreter-access");
  });

  it("refuses vars() with no argument and compile()", async () => {
    const reply = "def test_mean():\n    assert vars()\n    assert compile('1', 'x', 'eval')\n";
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["interpreter-access"]);
    expect(result.ok ? [] : result.findings.map((f) => f.line)).toEqual([2, 3]);
  });

  it("refuses a module reached through vars(), __dict__ or a computed getattr", async () => {
    const reply = py`
      import os

      def test_mean():
          name = "_ex" + "it"
          assert vars(os)[name]
          assert os.__dict__[name]
          assert getattr(os, name)
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["dynamic-module-access"]);
    expect(result.ok ? [] : result.findings.map((f) => f.line)).toEqual([5, 6, 7]);
  });

  it("refuses a skipif whose condition is a string pytest would eval", async () => {
    const reply = py`
      import pytest
      from statkit.stats import mean

      @pytest.mark.skipif("mean([1]) != 1", reason="not ready")
      def test_mean():
          assert mean([1]) == 1

      @pytest.mark.parametrize("xs", [pytest.param([1], marks=pytest.mark.xfail(MEAN_CONDITION))])
      def test_mean_param(xs):
          assert mean(xs) == 1
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["string-condition"]);
    expect(result.ok ? [] : result.findings.map((f) => f.line)).toEqual([4, 8]);
  });
});

describe("ending the process", () => {
  it.each([
    ["os._exit", "import os\n\ndef test_mean():\n    os._exit(0)\n"],
    ["os._exit imported by name", "from os import _exit as done\n\ndef test_mean():\n    done(0)\n"],
    ["os._exit reached with getattr", "import os\n\ndef test_mean():\n    getattr(os, '_exit')(0)\n"],
    ["sys.exit", "import sys\n\ndef test_mean():\n    sys.exit(0)\n"],
    ["exit()", "def test_mean():\n    exit(0)\n"],
    ["quit()", "def test_mean():\n    quit()\n"],
    ["raise SystemExit", "def test_mean():\n    raise SystemExit\n"],
    ["SystemExit(0)", "def test_mean():\n    raise SystemExit(0)\n"],
    ["atexit.register(os._exit, 0)", "import atexit\nimport os\n\ndef test_mean():\n    atexit.register(os._exit, 0)\n    assert 1\n"],
    ["os.kill of the parent", "import os\n\ndef test_mean():\n    os.kill(os.getppid(), 9)\n"],
    ["os.abort", "import os\n\ndef test_mean():\n    os.abort()\n"],
    ["os.execv", "import os\n\ndef test_mean():\n    os.execv('/bin/true', ['true'])\n"],
    ["the signal module", "import signal\n\ndef test_mean():\n    signal.alarm(0)\n    assert 1\n"],
    ["faulthandler", "import faulthandler\n\ndef test_mean():\n    faulthandler.cancel_dump_traceback_later()\n    assert 1\n"],
    ["pytest.exit", "import pytest\n\ndef test_mean():\n    pytest.exit('done', returncode=0)\n"],
    ["a star import of os", "from os import *\n\ndef test_mean():\n    _exit(0)\n"],
  ])("refuses %s", async (_what, reply) => {
    expect(rulesOf(await tests(reply))).toContain("process-exit");
  });

  it("refuses an implementation that exits instead of returning", async () => {
    const code = "def mean(xs):\n    sys.exit(0)\n";
    const result = await implementation(code, "import sys");
    expect(rulesOf(result)).toEqual(["process-exit"]);
  });

  it("refuses an exit hook registered from the imports", async () => {
    const result = await implementation("def mean(xs):\n    return sum(xs) / len(xs)\n", "import atexit");
    expect(result.ok ? "" : result.reason).toBe('imports line 1: "atexit" can end or signal the process (process-exit)');
  });
});

describe("tests-only rules", () => {
  it("refuses an autouse fixture that monkeypatches another module", async () => {
    const reply = py`
      import pytest
      import statkit.stats
      from statkit.stats import mean

      @pytest.fixture(autouse=True)
      def mean_fake(monkeypatch):
          monkeypatch.setattr(statkit.stats, "mean", lambda xs: 1.0)

      def test_mean():
          assert mean([1, 2]) == 1.0
    `;
    expect(rulesOf(await tests(reply))).toEqual(["autouse-fixture"]);
  });

  it("refuses a pytest hook and pytest_plugins", async () => {
    const reply = py`
      pytest_plugins = ["statkit.stats"]

      def pytest_collection_modifyitems(items):
          items.clear()

      def test_mean():
          assert 1
    `;
    expect(rulesOf(await tests(reply))).toEqual(["pytest-hook"]);
  });

  it.each(["setup_module", "teardown_module", "setUpModule", "tearDownModule", "setup_function"])(
    "refuses a module-level %s",
    async (name) => {
      const reply = `def ${name}(*args):\n    pass\n\ndef test_mean():\n    assert 1\n`;
      expect(rulesOf(await tests(reply))).toEqual(["module-setup"]);
    },
  );

  it("refuses a test with no assert, naming it", async () => {
    const reply = py`
      from statkit.stats import mean

      def test_mean_runs():
          mean([1, 2])

      class TestMean:
          def test_has_assert(self):
              assert mean([1]) == 1

          def test_checks_nothing(self):
              check_mean(mean([1]))
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["tests-must-test"]);
    expect(result.ok ? [] : result.findings.map((f) => f.message)).toEqual([
      'test "test_mean_runs" has no assert and no pytest.raises, approx or warns',
      'test "test_checks_nothing" has no assert and no pytest.raises, approx or warns',
    ]);
  });
});

describe("implementation-only rules", () => {
  it("refuses an __eq__ that returns True whatever it is compared with", async () => {
    const code = py`
      class Vector:
          def __init__(self, x):
              self.x = x

          def __eq__(self, other):
              """Vectors are equal when their coordinates are."""
              return True
    `;
    const result = await implementation(code);
    expect(rulesOf(result)).toEqual(["constant-comparison"]);
    expect(result.ok ? "" : result.reason).toBe('line 5: "__eq__" always returns True (constant-comparison)');
  });

  it.each([["import pytest"], ["from unittest import mock"], ["import unittest.mock"], ["import mock"]])(
    "refuses the import %s",
    async (imports) => {
      const result = await implementation("def mean(xs):\n    return sum(xs) / len(xs)\n", imports);
      expect(rulesOf(result)).toEqual(["test-framework-import"]);
    },
  );

  it("refuses an implementation that writes a conftest.py under tests/", async () => {
    const code = py`
      def mean(xs):
          with open(os.path.join("tests", "conftest.py"), "w") as f:
              f.write("collect_ignore_glob = ['*']")
          return 0
    `;
    expect(rulesOf(await implementation(code, "import os"))).toEqual(["writes-tests"]);
  });

  it("refuses pytest decorators in an implementation", async () => {
    const code = "@pytest.mark.skip\ndef mean(xs):\n    return 0\n";
    expect(rulesOf(await implementation(code))).toEqual(["decorator-not-allowed", "implementation-skip"]);
  });
});

describe("unparsable replies", () => {
  it("refuses a reply that does not parse, with the parser's line", async () => {
    const result = await tests("def test_mean(:\n    assert 1\n");
    expect(rulesOf(result)).toEqual(["syntax-error"]);
    expect(result.ok ? 0 : result.findings[0]!.line).toBe(1);
  });

  it("refuses a reply nested too deeply to review instead of crashing", async () => {
    const result = await tests(`def test_mean():\n    assert ${"-".repeat(100_000)}1\n`);
    expect(rulesOf(result)).toEqual(["unreviewable"]);
  });

  it("lists at most three findings in the reason, then how many more", async () => {
    const reply = "import os\n\ndef test_mean():\n    os._exit(0)\n    os._exit(1)\n    os._exit(2)\n    os._exit(3)\n    assert 1\n";
    const result = await tests(reply);
    expect(result.ok ? "" : result.reason).toMatch(/^line 4: .*; line 5: .*; line 6: .*; and 1 more$/);
  });
});

// Replies a security review got past the review, each making a node pass with wrong code.
describe("replies from the security review", () => {
  it("refuses an implementation that imports __main__ and rebinds the gate's names", async () => {
    const code = py`
      def mean(xs):
          m._encode = lambda *args: b"passed"
          return 0
    `;
    const result = await implementation(code, "import __main__ as m");
    expect(rulesOf(result)).toEqual(["interpreter-access"]);
    expect(result.ok ? "" : result.reason).toContain('imports line 1: "__main__" reaches into the interpreter');
  });

  it.each([
    ["import __main__", "import __main__\n\ndef test_mean():\n    assert __main__\n"],
    ["from __main__ import", "from __main__ import _encode\n\ndef test_mean():\n    assert _encode\n"],
    ["a __main__ attribute", "def test_mean(mean_module):\n    assert mean_module.__main__\n"],
    ["a __main__ name from another node's import", "def test_mean():\n    __main__._encode = None\n    assert 1\n"],
    ["a string path into __main__", "def test_mean(monkeypatch):\n    monkeypatch.setattr('__main__._encode', None)\n    assert 1\n"],
  ])("refuses %s in tests", async (_what, reply) => {
    expect(rulesOf(await tests(reply))).toEqual(["interpreter-access"]);
  });

  it("refuses walking frames from an exception with getattr and computed names", async () => {
    const reply = py`
      from statkit.stats import mean

      def test_mean():
          try:
              1 / 0
          except ZeroDivisionError as e:
              tb = e.__traceback__
              f = getattr(tb, "tb_" + "frame")
              f = getattr(f, "f_" + "back")
              f.f_locals["expected"] = mean([1])
          assert mean([1]) == 1
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["interpreter-access"]);
    expect(result.ok ? [] : result.findings.map((f) => f.line)).toEqual([7, 8, 9, 10]);
  });

  it.each([
    [
      "getattr of __traceback__ by parts",
      "def mean(xs):\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        return getattr(e, '__trace' + 'back__')\n",
    ],
    ["a name split so no part holds a prefix", "def mean(xs, tb):\n    return getattr(tb, 't' + 'b_fr' + 'ame')\n"],
    ["an f-string name", "def mean(xs, f):\n    return getattr(f, f'f_{xs}')\n"],
    ["object.__getattribute__", "def mean(xs, tb):\n    return object.__getattribute__(tb, 'tb_' + 'frame')\n"],
    ["super().__getattribute__", "class Mean:\n    def value(self):\n        return super().__getattribute__('__glo' + 'bals__')\n"],
    ["sys.exc_info", "def mean(xs):\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        return sys.exc_info()[2]\n"],
    ["traceback.walk_stack", "def mean(xs):\n    return [f for f, _ in traceback.walk_stack(None)]\n"],
    ["a builtin's __self__ (the builtins module)", "def mean(xs):\n    return len.__self__\n"],
  ])("refuses %s in an implementation", async (_what, code) => {
    expect(rulesOf(await implementation(code, "import sys\nimport traceback"))).toEqual(["interpreter-access"]);
  });

  it("refuses operator.attrgetter with a computed name reaching sys.modules['__main__']", async () => {
    const code = py`
      def mean(xs):
          attrgetter("mod" + "ules")(sys)["__ma" + "in__"]._encode = None
          return sum(xs) / len(xs)
    `;
    const result = await implementation(code, "import sys\nfrom operator import attrgetter");
    expect(rulesOf(result)).toEqual(["interpreter-access"]);
    expect(result.ok ? "" : result.reason).toMatch(/^line 2: attrgetter of a computed name/);
  });

  it.each([
    ["attrgetter of modules", "def mean(xs):\n    return operator.attrgetter('modules')(sys)\n"],
    ["attrgetter of a frame attribute", "def mean(xs, e):\n    return operator.attrgetter('tb_frame.f_back')(e)\n"],
    ["methodcaller of a dunder", "def mean(xs):\n    return operator.methodcaller('__getattribute__', 'modules')(sys)\n"],
    ["methodcaller by a computed name", "def mean(xs, name):\n    return operator.methodcaller(name)(sys)\n"],
    ["getattr aliased", "def mean(xs):\n    g = getattr\n    return g(sys, 'mod' + 'ules')\n"],
    ["getattr passed to functools.reduce", "def mean(xs):\n    return functools.reduce(getattr, ['mod', 'ules'], sys)\n"],
    ["vars passed to map", "def mean(xs):\n    return list(map(vars, [sys]))\n"],
    ["attrgetter aliased", "def mean(xs):\n    get = operator.attrgetter\n    return get('x')(xs)\n"],
  ])("refuses %s", async (_what, code) => {
    expect(rulesOf(await implementation(code, "import functools\nimport operator\nimport sys"))).toEqual(["interpreter-access"]);
  });

  it("refuses tests reaching pytest's objects through request, caplog and capsys", async () => {
    const reply = py`
      from statkit.stats import mean

      def test_mean(request, caplog, capsys):
          manager = request.config
          item = caplog._item
          fixture_request = capsys.request
          keep(request)
          assert mean([1]) == 1
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["runner-object"]);
    expect(result.ok ? [] : [...new Set(result.findings.map((f) => f.line))]).toEqual([4, 5, 6, 7]);
  });

  it.each([
    ["pytestconfig", "def test_mean(pytestconfig):\n    assert pytestconfig\n"],
    ["record_testsuite_property", "def test_mean(record_testsuite_property):\n    assert record_testsuite_property\n"],
    ["pytester", "def test_mean(pytester):\n    assert pytester\n"],
    [
      "pytestconfig in a fixture",
      "import pytest\n\n@pytest.fixture\ndef mean_config(pytestconfig):\n    return 1\n\ndef test_mean(mean_config):\n    assert mean_config\n",
    ],
    ["request.node beyond its name", "def test_mean(request):\n    assert request.node.config\n"],
    [
      "request returned from a fixture",
      "import pytest\n\n@pytest.fixture\ndef req(request):\n    return request\n\ndef test_mean(req):\n    assert req\n",
    ],
    ["getfixturevalue of pytestconfig", "def test_mean(request):\n    assert request.getfixturevalue('pytestconfig')\n"],
    ["getfixturevalue by a computed name", "def test_mean(request):\n    assert request.getfixturevalue('pytest' + 'config')\n"],
    ["caplog.handler", "def test_mean(caplog):\n    assert caplog.handler\n"],
    ["a capture method kept as a value", "def test_mean(capsys):\n    read = capsys.readouterr\n    assert read.__self__\n"],
    ["getattr on request", "def test_mean(request):\n    assert getattr(request, 'config')\n"],
    ["the cache fixture's config", "def test_mean(cache):\n    assert cache._config\n"],
    [
      "a unittest case's outcome",
      "import unittest\n\nclass TestMean(unittest.TestCase):\n    def test_mean(self):\n        self.assertTrue(self._outcome.result)\n",
    ],
  ])("refuses %s", async (_what, reply) => {
    expect(rulesOf(await tests(reply))).toContain("runner-object");
  });

  it("refuses an always-equal int subclass nested in the implementation", async () => {
    const code = py`
      def always(x):
          class Always(int):
              def __eq__(self, other):
                  return other == other
              __hash__ = int.__hash__
          return Always(0)
    `;
    const result = await implementation(code);
    expect(rulesOf(result)).toEqual(["constant-comparison"]);
    expect(result.ok ? "" : result.reason).toBe(
      'line 3: "__eq__" never uses "self", so its answer does not depend on the object (constant-comparison)',
    );
  });

  it.each([
    [
      "a nested constant __ne__",
      "def make():\n    class Never:\n        def __ne__(self, other):\n            return False\n    return Never()\n",
    ],
    ["a comparison set to a function of the reply", "def _always(a, b):\n    return True\n\nclass Always:\n    __eq__ = _always\n"],
    ["a comparison set from outside the class", "def make(cls):\n    cls.__eq__ = lambda a, b: True\n    return cls\n"],
    ["a comparison set with setattr", "def make(cls, fn):\n    setattr(cls, '__lt__', fn)\n    return cls\n"],
    ["a comparison using only its other argument", "class Mean:\n    def __ge__(me, other):\n        return other is other\n"],
  ])("refuses %s", async (_what, code) => {
    expect(rulesOf(await implementation(code))).toEqual(["constant-comparison"]);
  });
});

// A second security review: format strings walked from an exception to the verdict plugin's frame and read its key,
// the reply signed a report of passes and wrote it to the runner's descriptor, then skipped so pytest's own report
// never counted (docs/review-rules.md, format-traversal to implementation-skip).
describe("replies from the second security review", () => {
  const FORGER_IMPORTS = "import ast\nimport hashlib\nimport hmac\nimport json\nimport logging\nimport os\nimport pkgutil\nimport re";

  it("refuses the implementation that read the key through a logging format and forged the verdict", async () => {
    const code = py`
      def forger(x):
          try:
              1 / 0
          except ZeroDivisionError as e:
              record = logging.makeLogRecord({"e": e})
              key = None
              for n in range(1, 80):
                  fmt = "{e.__traceback__.tb_frame" + ".f_back" * n + ".f_locals[record].gi_frame.f_locals[key]}"
                  try:
                      key = ast.literal_eval(logging.Formatter(fmt, style="{", validate=False).format(record))
                      break
                  except Exception:
                      continue
          here = os.environ["PYTEST_CURRENT_TEST"].split("::")[0]
          with open(here) as f:
              ids = [here + "::" + name for name in re.findall(r"^def (test_\w+)", f.read(), re.M)]
          payload = json.dumps(dict(exitstatus=0, tests={i: "passed" for i in ids}, collect_errors=[], junit=None)).encode()
          os.write(5, hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\n" + payload)
          os.dup2(os.open(os.devnull, os.O_WRONLY), 5)
          raise pkgutil.resolve_name("unittest.case:SkipTest")("later")
    `;
    const result = await implementation(code, FORGER_IMPORTS);
    expect(rulesOf(result)).toEqual(["format-traversal", "runner-channel", "implementation-skip", "interpreter-access"]);
    expect(result.ok ? [] : result.findings.map((f) => [f.line, f.rule])).toEqual([
      [8, "format-traversal"],
      [8, "format-traversal"],
      [14, "runner-channel"],
      [18, "runner-channel"],
      [19, "runner-channel"],
      [20, "implementation-skip"],
      [20, "interpreter-access"],
    ]);
  });

  it("refuses the tests reply that did the same from a failing test", async () => {
    const reply = py`
      import ast
      import hashlib
      import hmac
      import json
      import logging
      import os

      import pytest

      from lab.forger import forger


      def _forger_read_key():
          try:
              1 / 0
          except ZeroDivisionError as e:
              record = logging.makeLogRecord({"e": e})
              for n in range(1, 80):
                  fmt = "{e.__traceback__.tb_frame" + ".f_back" * n + ".f_locals[record].gi_frame.f_locals[key]}"
                  try:
                      text = logging.Formatter(fmt, style="{", validate=False).format(record)
                  except Exception:
                      continue
                  return ast.literal_eval(text)


      def _forger_sign_passes():
          key = _forger_read_key()
          here = os.environ["PYTEST_CURRENT_TEST"].split("::")[0]
          ids = [here + "::test_forger_two", here + "::test_forger_zero"]
          payload = json.dumps({"exitstatus": 0, "tests": {i: "passed" for i in ids}, "collect_errors": [], "junit": None}).encode()
          os.write(5, hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\n" + payload)
          # pytest's own report now goes nowhere; every test skips, so pytest exits 0.
          os.dup2(os.open(os.devnull, os.O_WRONLY), 5)


      def test_forger_two():
          if forger(2) != 4:
              _forger_sign_passes()
              pytest.skip("later")
          assert forger(2) == 4


      def test_forger_zero():
          if forger(0) != 0:
              pytest.skip("later")
          assert forger(0) == 0
    `;
    const result = await tests(reply);
    expect(rulesOf(result)).toEqual(["format-traversal", "runner-channel"]);
    expect(result.ok ? [] : [...new Set(result.findings.map((f) => f.line))]).toEqual([19, 29, 32, 34]);
  });

  it.each([
    ["a literal str.format field walking a dunder", "def f(e):\n    return '{0.__class__.__init__}'.format(e)\n"],
    ["a literal field walking a frame", "def f(e):\n    return '{e.tb_frame}'.format_map({'e': e})\n"],
    ["a literal field after an index", "def f(d):\n    return '{d[x].gi_frame}'.format(d=d)\n"],
    ["an f-string making a format string", "def f(e, x):\n    return f'{{e.{x}}}'.format(e=e)\n"],
    ["a field split across a concatenation", "def f(e):\n    return ('{e.__trace' + 'back__}').format(e=e)\n"],
    ["a format field built into a variable", "def f(e, x):\n    fmt = '{e.' + x + '}'\n    return fmt.format(e=e)\n"],
    ["a repeated format string", "def f(e, n):\n    return ('{} ' * n).format(e)\n"],
    ["str.format of a computed format", "def f(e, x):\n    return str.format(x + '}', e)\n"],
    ["string.Formatter().vformat of a computed format", "def f(e, x):\n    return string.Formatter().vformat('{' + x, (), {})\n"],
    ["string.Formatter().get_field of a computed field", "def f(e, x):\n    return string.Formatter().get_field(x, (e,), {})\n"],
    ["get_value of a computed key", "def f(e, x):\n    return string.Formatter().get_value(x, (e,), {})\n"],
    ["a {-style logging.Formatter of a computed format", "def f(x):\n    return logging.Formatter(x + '}', style='{')\n"],
    ["a logging format whose style is computed", "def f(x, s):\n    return logging.Formatter(fmt='{' + x, style=s)\n"],
    ["logging.StrFormatStyle of a computed format", "def f(x):\n    return logging.StrFormatStyle('{' + x)\n"],
    ["_string's field splitter", "def f(x):\n    return _string.formatter_field_name_split(x)\n"],
  ])("refuses %s", async (_what, code) => {
    const imports = "import _string\nimport logging\nimport string";
    expect(rulesOf(await implementation(code, imports))).toContain("format-traversal");
  });

  it.each([
    ["os.write", "def f():\n    os.write(5, b'x')\n"],
    ["os.dup", "def f():\n    return os.dup(5)\n"],
    ["os.dup2", "def f():\n    os.dup2(os.open(os.devnull, os.O_WRONLY), 5)\n"],
    ["os.close", "def f():\n    os.close(5)\n"],
    ["os.closerange", "def f():\n    os.closerange(3, 100)\n"],
    ["os.fdopen", "def f():\n    return os.fdopen(5, 'w')\n"],
    ["os.pipe", "def f():\n    return os.pipe()\n"],
    ["os.set_inheritable", "def f():\n    os.set_inheritable(5, True)\n"],
    ["os.write imported by name", "from os import write as w\n\ndef f():\n    w(5, b'x')\n"],
    ["open of a descriptor number", "def f():\n    return open(5, 'wb')\n"],
    ["io.open of a descriptor number", "def f():\n    return io.open(4 + 1, 'wb')\n"],
    ["io.FileIO of a descriptor number", "def f():\n    return io.FileIO(5, 'w')\n"],
    ["open with closefd", "def f(fd):\n    return open(fd, 'wb', closefd=False)\n"],
    ["open with an opener", "def f():\n    return open('x', 'wb', opener=lambda path, flags: 5)\n"],
    ["a /proc path to a descriptor", "def f():\n    return open('/proc/self/fd/5', 'wb')\n"],
    ["a /dev/fd path built at run time", "def f(n):\n    return open('/dev/' + 'fd/' + str(n), 'wb')\n"],
    ["a shell inheriting the descriptors", "def f():\n    os.system('printf x >&5')\n"],
    ["a child given the descriptors", "def f():\n    subprocess.run(['true'], pass_fds=[5])\n"],
    ["a child keeping the descriptors", "def f():\n    subprocess.run(['true'], close_fds=False)\n"],
    ["PYTEST_CURRENT_TEST", "def f():\n    return os.environ['PYTEST_CURRENT_TEST']\n"],
    ["PYTEST_CURRENT_TEST built at run time", "def f():\n    return os.environ['PYTEST_' + 'CURRENT_TEST']\n"],
    ["os.getenv of a computed PYTEST_ name", "def f(x):\n    return os.getenv('PYTEST_' + x)\n"],
  ])("refuses %s in an implementation", async (_what, code) => {
    expect(rulesOf(await implementation(code, "import io\nimport os\nimport subprocess"))).toContain("runner-channel");
  });

  it.each([
    ["os.write", "import os\n\ndef test_f():\n    os.write(5, b'x')\n    assert 1\n"],
    ["os.dup2", "import os\n\ndef test_f():\n    os.dup2(1, 5)\n    assert 1\n"],
    ["open of a descriptor number", "def test_f():\n    open(5, 'w').write('x')\n    assert 1\n"],
    ["PYTEST_CURRENT_TEST", "import os\n\ndef test_f():\n    assert os.environ['PYTEST_CURRENT_TEST']\n"],
  ])("refuses %s in tests", async (_what, reply) => {
    expect(rulesOf(await tests(reply))).toContain("runner-channel");
  });

  it.each([
    ["pkgutil.resolve_name", "def f():\n    raise pkgutil.resolve_name('unittest.case:SkipTest')('later')\n"],
    ["pydoc.locate", "def f():\n    return pydoc.locate('os.path')\n"],
    ["logging.config", "def f(c):\n    logging.config.dictConfig(c)\n"],
    ["timeit running a string", "def f():\n    return timeit.timeit('1', number=1)\n"],
  ])("refuses the resolver %s", async (_what, code) => {
    const imports = "import logging.config\nimport pkgutil\nimport pydoc\nimport timeit";
    expect(rulesOf(await implementation(code, imports))).toContain("interpreter-access");
  });

  it.each([
    ["threading", "import threading\n\ndef test_f():\n    threading.Thread(target=print).start()\n    assert 1\n"],
    ["_thread", "import _thread\n\ndef test_f():\n    _thread.start_new_thread(print, ())\n    assert 1\n"],
    ["a thread pool", "from concurrent.futures import ThreadPoolExecutor\n\ndef test_f():\n    assert ThreadPoolExecutor(1)\n"],
    ["multiprocessing", "import multiprocessing\n\ndef test_f():\n    assert multiprocessing.Pool(1)\n"],
    [
      "an executor of the event loop",
      "import asyncio\n\nasync def test_f():\n    assert await asyncio.get_running_loop().run_in_executor(None, int)\n",
    ],
    ["os.fork", "import os\n\ndef test_f():\n    assert os.fork() >= 0\n"],
  ])("refuses %s in tests", async (_what, reply) => {
    expect(rulesOf(await tests(reply))).toEqual(["thread-use"]);
  });

  it.each([
    ["_thread", "def f():\n    _thread.start_new_thread(print, ())\n"],
    ["threading.settrace", "def f(hook):\n    threading.settrace(hook)\n"],
    ["threading.setprofile", "def f(hook):\n    threading.setprofile(hook)\n"],
    ["sys.setswitchinterval", "def f():\n    sys.setswitchinterval(1e-6)\n"],
  ])("refuses %s in an implementation", async (_what, code) => {
    expect(rulesOf(await implementation(code, "import _thread\nimport sys\nimport threading"))).toEqual(["thread-use"]);
  });

  it.each([
    ["raise SkipTest from another node's import", "def f():\n    raise SkipTest('later')\n"],
    ["unittest.SkipTest", "def f():\n    raise unittest.SkipTest('later')\n"],
    ["pytest.skip", "def f():\n    pytest.skip('later')\n"],
    ["pytest.xfail", "def f():\n    pytest.xfail('later')\n"],
    ["pytest.importorskip", "def f():\n    return pytest.importorskip('numpy')\n"],
    ["pytest.skip.Exception", "def f():\n    raise pytest.skip.Exception('later')\n"],
    ["a string naming SkipTest", "def f(resolve):\n    raise resolve('unittest.case:Skip' + 'Test')('later')\n"],
  ])("refuses %s in an implementation", async (_what, code) => {
    expect(rulesOf(await implementation(code))).toContain("implementation-skip");
  });
});
