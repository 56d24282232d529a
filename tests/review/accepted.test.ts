import { beforeAll, describe, expect, it } from "vitest";
import { reviewImplementation, reviewTests } from "../../src/review/reply-review.js";
import { findPython } from "../../src/sandbox/python.js";
import { expectAccepted, py } from "./review-helpers.js";

let python: string;
beforeAll(async () => {
  python = await findPython();
});

// False positives cost a user an iteration and the model a wrong lesson: ordinary
// code of every kind the model writes must pass untouched.
describe("ordinary implementations", () => {
  it("accepts a frozen dataclass with fields, properties, a setter and a __repr__", async () => {
    const code = py`
      @dataclass(frozen=True, order=True)
      class Point:
          """A point in the plane."""

          x: float = 0.0
          y: float = -1.0
          tags: list[str] = field(default_factory=list)
          label: Optional[str] = field(default=None, compare=False)
          ORIGIN_NAME: ClassVar[str] = "origin"

          @property
          def norm(self) -> float:
              return math.hypot(self.x, self.y)

          @norm.setter
          def norm(self, value: float) -> None:
              raise AttributeError("read-only")

          def __repr__(self) -> str:
              return f"{self.__class__.__name__}({self.x!r}, {self.y!r})"

          def __eq__(self, other: object) -> bool:
              if not isinstance(other, Point):
                  return NotImplemented
              return (self.x, self.y) == (other.x, other.y)
    `;
    const imports = "import math\nfrom dataclasses import dataclass, field\nfrom typing import ClassVar, Optional";
    expectAccepted(await reviewImplementation(python, code, imports));
  });

  it("accepts caches, wraps, total_ordering, classmethods and staticmethods", async () => {
    const code = py`
      @functools.total_ordering
      class Version:
          PARTS = 3
          SEPARATOR = "."
          _cache: dict = {}

          def __init__(self, major: int, minor: int = 0, *, patch: int = 0) -> None:
              super().__init__()
              self.parts = (major, minor, patch)

          @classmethod
          def parse(cls, text: str) -> "Version":
              return cls(*map(int, text.split(cls.SEPARATOR)))

          @staticmethod
          @lru_cache(maxsize=128)
          def normalize(text: str) -> str:
              return text.strip()

          @functools.cached_property
          def label(self) -> str:
              return ".".join(map(str, self.parts))

          def __lt__(self, other: "Version") -> bool:
              return self.parts < other.parts

          def __eq__(self, other: object) -> bool:
              return isinstance(other, Version) and self.parts == other.parts

          def __hash__(self) -> int:
              return hash(self.parts)

          def logged(self, fn: Callable[..., int]) -> Callable[..., int]:
              @wraps(fn)
              def inner(*args: Any, **kwargs: Any) -> int:
                  return fn(*args, **kwargs)

              return inner
    `;
    const imports = "import functools\nfrom functools import lru_cache, wraps\nfrom typing import Any, Callable";
    expectAccepted(await reviewImplementation(python, code, imports));
  });

  it("accepts abstract classes, enums, exceptions, context managers and singledispatch", async () => {
    const cases: [string, string][] = [
      [
        py`
          class Shape(abc.ABC, metaclass=abc.ABCMeta):
              @abc.abstractmethod
              def area(self) -> float: ...
        `,
        "import abc",
      ],
      [
        py`
          class Color(Enum):
              RED = auto()
              GREEN = auto()
              BLUE = 3
        `,
        "from enum import Enum, auto",
      ],
      [
        py`
          class ParseError(ValueError):
              def __init__(self, message: str, line: int = 1) -> None:
                  super().__init__(f"line {line}: {message}")
                  self.line = line
        `,
        "",
      ],
      [
        py`
          @contextmanager
          def opened(path: str, mode: str = "r") -> Iterator[IO[str]]:
              handle = open(path, mode, encoding="utf-8")
              try:
                  yield handle
              finally:
                  handle.close()
        `,
        "from contextlib import contextmanager\nfrom typing import IO, Iterator",
      ],
      [
        py`
          @singledispatch
          def describe(value: object) -> str:
              return repr(value)

          @describe.register
          def _(value: int) -> str:
              return f"int {value}"
        `,
        "from functools import singledispatch",
      ],
      [
        py`
          class Tokenizer:
              PATTERN = re.compile(r"\s+")
              KEYWORDS = frozenset({"if", "else"})
              MODE: Literal["fast", "slow mode"] = "fast"
              LIMIT: Annotated[int, "characters per token"] = 80

              def split(self, code: str, limit: "int | None" = None, sep=sys.maxsize) -> "list[Token]":
                  signal = [t for t in self.PATTERN.split(code) if t]
                  return signal[:limit] if signal.count("") == 0 else []
        `,
        "import re\nimport sys\nfrom typing import Annotated, Literal",
      ],
    ];
    for (const [code, imports] of cases) expectAccepted(await reviewImplementation(python, code, imports));
  });

  it("accepts reading and writing files outside tests/ and a docstring that mentions tests", async () => {
    const code = py`
      def save_report(rows: list, path: str = "out/report.csv") -> None:
          """Writes the rows; see tests/test_report.py for the format."""
          os.makedirs(os.path.dirname(path), exist_ok=True)
          with open(path, "w", encoding="utf-8") as f:
              f.write("\n".join(map(str, rows)))
    `;
    expectAccepted(await reviewImplementation(python, code, "import os"));
  });
});

describe("ordinary tests", () => {
  it("accepts parametrize with pytest.param, ids and marks, and fixtures without autouse", async () => {
    const reply = py`
      import math
      import sys
      from decimal import Decimal

      import pytest

      from statkit.stats import mean


      @pytest.fixture
      def mean_values():
          return [1.0, 2.0, 3.0]


      @pytest.fixture(scope="module", autouse=False, params=[1, 2])
      def mean_scale(request):
          return request.param


      @pytest.mark.parametrize(
          ("xs", "expected"),
          [
              ([1, 2], 1.5),
              pytest.param([-1, 1], 0.0, id="symmetric"),
              pytest.param([], math.nan, marks=pytest.mark.xfail(raises=ValueError, strict=True)),
              ([float("inf"), 1], float("inf")),
              ([Decimal("1.5")] * 2, Decimal("1.5")),
              (list(range(5)), 2),
          ],
          ids=str,
      )
      def test_mean_values(xs, expected):
          assert mean(xs) == pytest.approx(expected)


      @pytest.mark.skipif(sys.platform == "win32" and sys.version_info < (3, 9), reason="no fork")
      def test_mean_uses_fixtures(mean_values, mean_scale, tmp_path, monkeypatch):
          monkeypatch.setenv("STATKIT_MODE", "fast")
          (tmp_path / "data.txt").write_text("1 2 3")
          assert mean([v * mean_scale for v in mean_values]) == 2.0 * mean_scale


      def test_mean_of_empty_raises():
          with pytest.raises(ValueError, match="empty"):
              mean([])


      def test_mean_warns_on_nan():
          with pytest.warns(RuntimeWarning):
              mean([math.nan])
    `;
    expectAccepted(await reviewTests(python, reply));
  });

  it("accepts test classes with constants, setup methods and unittest-style asserts", async () => {
    const reply = py`
      import unittest
      from unittest import mock

      from statkit.stats import Mean


      class TestMean:
          """Mean over a stream."""

          VALUES = (1, 2, 3)
          EXPECTED: float = 2.0
          pytestmark = pytest.mark.slow

          def setup_method(self, method):
              self.mean = Mean()

          def test_stream(self):
              for v in self.VALUES:
                  self.mean.add(v)
              assert self.mean.value == self.EXPECTED

          class TestEmpty:
              def test_empty(self):
                  assert Mean().value is None


      class TestMeanCase(unittest.TestCase):
          def test_add(self):
              m = Mean()
              m.add(1)
              self.assertEqual(m.value, 1)

          def test_logs(self):
              with mock.patch("statkit.stats.log") as log:
                  Mean().add(1)
              log.assert_called_once()
    `;
    expectAccepted(await reviewTests(python, reply));
  });

  it("accepts helpers, lambdas and exceptions used inside tests", async () => {
    const reply = py`
      import pytest
      from statkit.stats import mean


      def _mean_of(*xs, default=None):
          return mean(list(xs)) if xs else default


      def test_mean_helpers():
          key = lambda x, k=2: x * k
          try:
              _mean_of()
          except ValueError as e:
              assert "empty" in str(e)
          assert sorted([3, 1], key=key) == [1, 3]


      async def test_mean_async():
          assert await pytest.importorskip("asyncio").sleep(0, result=1) == 1
    `;
    expectAccepted(await reviewTests(python, reply));
  });

  it("accepts a UTF-8 coding comment", async () => {
    expectAccepted(await reviewTests(python, "# -*- coding: utf-8 -*-\ndef test_mean():\n    assert 1\n"));
  });
});

describe("ordinary code near the rules the security review tightened", () => {
  it("accepts getattr, setattr and hasattr with computed names in a visitor, proxies and a dataclass", async () => {
    const code = py`
      class Visitor:
          def visit(self, node):
              kind = type(node).__name__
              method = getattr(self, "visit_" + kind, None) or getattr(self, f"visit_{kind.lower()}", self.generic)
              return method(node)

          def generic(self, node):
              for name in node.fields:
                  value = getattr(node, name)
                  if hasattr(value, name):
                      setattr(self, name, getattr(self, name, 0) + 1)
              return vars(self)


      class Proxy:
          def __init__(self, inner):
              object.__setattr__(self, "_inner", inner)

          def __getattr__(self, name):
              return getattr(self._inner, name)

          def __setattr__(self, name, value):
              super().__setattr__("_" + name, value)


      @dataclasses.dataclass
      class Row:
          name: str = ""
          tags: list = dataclasses.field(default_factory=list)

          def as_dict(self):
              return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
    `;
    expectAccepted(await reviewImplementation(python, code, "import dataclasses"));
  });

  it("accepts logging, traceback printing, attrgetter and methodcaller with plain names", async () => {
    const code = py`
      def by_name(rows):
          log = logging.getLogger(__name__)
          log.info("sorting %d rows", len(rows))
          try:
              rows = sorted(rows, key=operator.attrgetter("name", "size.total"))
          except TypeError as e:
              log.exception("unsortable rows")
              traceback.print_exc()
              raise ValueError(str(e)) from e.with_traceback(None)
          return list(map(operator.methodcaller("strip"), rows))
    `;
    expectAccepted(await reviewImplementation(python, code, "import logging\nimport operator\nimport traceback"));
  });

  it("accepts comparison methods that compare their own object, defer, or are borrowed", async () => {
    const code = py`
      def make_key():
          class Key:
              def __init__(self, value):
                  self.value = value

              def __eq__(self, other):
                  if not isinstance(other, Key):
                      return NotImplemented
                  return self.value == other.value

              def __lt__(self, other):
                  return NotImplemented

              def __gt__(self, other):
                  raise TypeError("keys are not ordered")

              __le__ = object.__le__
              __ne__ = None
              __hash__ = None

          return Key
    `;
    expectAccepted(await reviewImplementation(python, code, ""));
  });

  it("accepts request.param, request.node.name, getfixturevalue, addfinalizer, caplog and capsys as documented", async () => {
    const reply = py`
      import logging

      import pytest

      from statkit.stats import mean


      @pytest.fixture(params=[1, 2])
      def mean_size(request):
          request.addfinalizer(lambda: None)
          assert request.getfixturevalue("tmp_path").exists()
          return request.param


      def test_mean_logs(mean_size, caplog, capsys, request, cache):
          caplog.set_level(logging.INFO)
          with caplog.at_level(logging.DEBUG, logger="statkit"):
              print(request.node.name, mean([mean_size]))
          assert caplog.records[0].levelname == "INFO"
          assert "mean" in caplog.text and caplog.record_tuples and caplog.messages
          caplog.clear()
          out, err = capsys.readouterr()
          with capsys.disabled():
              pass
          cache.set("statkit/last", 1)
          assert cache.get("statkit/last", None) == 1
          assert out.strip() != ""
    `;
    expectAccepted(await reviewTests(python, reply));
  });
});

describe("ordinary code near the rules of the second security review", () => {
  it("accepts format strings with plain and attribute fields, logging formats and templates", async () => {
    const code = py`
      LOG_FORMAT = "{asctime} {levelname} {message}"
      TEMPLATES = {"row": "{name:<10} {value:>8.2f}", "sum": "total: {0}"}


      def describe(n, v, point, rows, kind="row"):
          line = "{name}: {value}".format(name=n, value=v)
          where = "({0.x}, {0.y}) {p[key]} {0.x!r:>6}".format(point, p={"key": 1})
          plain = f"{n}: {v!r:>10} {point.x:.2f} {'{'}{n}{'}'}"
          shown = TEMPLATES[kind].format(name=n, value=v) + "{:>8}".format(v) + "{} {}".format(n, v)
          body = textwrap.dedent("""
              {title}
              {body}
          """).format(title=n, body=v)
          greeting = string.Template("hello $name").substitute(name=n)
          as_set = "{" + ", ".join(sorted(rows)) + "}"
          return line, where, plain, shown, body, greeting, as_set, "{{literal}} {0}".format(n)


      def formatters(fmt):
          return [
              logging.Formatter("%(levelname)s %(message)s"),
              logging.Formatter("{levelname} {message}", style="{"),
              logging.Formatter(LOG_FORMAT, style="{"),
              logging.Formatter(fmt),
              logging.Formatter("$levelname $message", style="$"),
          ]


      def render(template, **values):
          return template.format(**values), template.format_map(values)
    `;
    expectAccepted(await reviewImplementation(python, code, "import logging\nimport string\nimport textwrap"));
  });

  it("accepts files by path, environment variables, subprocesses, locks and regexes with braces", async () => {
    const code = py`
      _LOCK = None


      def load(path, cmd):
          with open(path, "rb") as fh, io.open(path, encoding="utf-8") as text:
              data = fh.read() + text.read().encode()
          home = os.environ.get("HOME", "") + os.environ["PATH"] + os.getenv("LANG", "C")
          done = subprocess.run(cmd, capture_output=True, check=False, close_fds=True)
          lock = threading.Lock()
          with lock:
              found = re.findall(r"\{(\w+)\.(\w+)\}", data.decode())
          return data, home, done.returncode, found, os.path.join(os.getcwd(), "out")
    `;
    const imports = "import io\nimport os\nimport re\nimport subprocess\nimport threading";
    expectAccepted(await reviewImplementation(python, code, imports));
  });

  it("accepts skips, xfails and importorskip in tests, and format strings there", async () => {
    const reply = py`
      import os
      import sys

      import pytest

      from statkit.stats import mean


      @pytest.mark.xfail(sys.version_info < (3, 8), reason="old", strict=True)
      def test_mean_formats():
          assert "{0:.1f}".format(mean([1, 2])) == "1.5"
          assert f"{mean([1]):.0f}" == "1"


      @pytest.mark.skipif(sys.platform == "win32", reason="posix only")
      def test_mean_skips():
          if os.environ.get("STATKIT_SLOW") is None:
              pytest.skip("slow")
          np = pytest.importorskip("numpy")
          assert mean(np.array([1.0])) == 1.0
    `;
    expectAccepted(await reviewTests(python, reply));
  });
});

describe("the review itself", () => {
  it("reviews a large ordinary reply in well under a second", async () => {
    const one = (i: number) => `def test_mean_${i}():\n    assert mean([${i}, ${i}]) == ${i}\n\n`;
    const reply = `from statkit.stats import mean\n\n${Array.from({ length: 3000 }, (_, i) => one(i)).join("")}`;
    const started = performance.now();
    expectAccepted(await reviewTests(python, reply));
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
