import { describe, expect, it } from "vitest";
import { withoutSymbols } from "../../src/assembly/module-subset.js";
import { outlinePython } from "../../src/workspace/python-outline.js";
import { findPython } from "../../src/sandbox/python.js";

const python = await findPython();

async function cut(source: string, remove: string[]): Promise<string> {
  const result = await withoutSymbols(python, source, remove);
  expect((await outlinePython(python, result)).ok).toBe(true);
  return result;
}

const THREE = `"""Descriptive statistics."""

from __future__ import annotations

import math
from typing import Iterable

from statkit.report import summarize
from statkit.validation import ensure_numbers, ensure_positive


def mean(values: Iterable[float]) -> float:
    ensure_numbers(values)
    return sum(values) / len(values)


def stdev(values):
    ensure_positive(len(values))
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / len(values))


def report(values):
    """Prints a summary."""
    return summarize(values, spread=math.sqrt(2))
`;

describe("withoutSymbols", () => {
  it("removes one of three functions and keeps the other two byte for byte, two blank lines apart", async () => {
    expect(await cut(THREE, ["stdev"])).toBe(`"""Descriptive statistics."""

from __future__ import annotations

import math
from typing import Iterable

from statkit.report import summarize
from statkit.validation import ensure_numbers


def mean(values: Iterable[float]) -> float:
    ensure_numbers(values)
    return sum(values) / len(values)


def report(values):
    """Prints a summary."""
    return summarize(values, spread=math.sqrt(2))
`);
  });

  it("deletes an import only the removed function used and keeps one a kept function still uses", async () => {
    const result = await cut(THREE, ["report"]);
    expect(result).not.toContain("summarize");
    expect(result).toContain("\nimport math\n");
    expect(result).toBe(`"""Descriptive statistics."""

from __future__ import annotations

import math
from typing import Iterable

from statkit.validation import ensure_numbers, ensure_positive


def mean(values: Iterable[float]) -> float:
    ensure_numbers(values)
    return sum(values) / len(values)


def stdev(values):
    ensure_positive(len(values))
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / len(values))
`);
  });

  it("removes every definition and leaves the docstring, __future__ and the imports nobody used", async () => {
    const source = `"""Descriptive statistics."""

from __future__ import annotations

import json
import math

from statkit.report import summarize


def mean(values):
    return math.fsum(values) / len(values)


def report(values):
    return summarize(values)
`;
    expect(await cut(source, ["mean", "report"])).toBe(`"""Descriptive statistics."""

from __future__ import annotations

import json
`);
  });

  it("removes a decorated function and a class with its leading comment whole", async () => {
    const source = `"""Caching."""

import functools


@functools.cache
@staticmethod
def cached(x):
    return x


# Keeps the running total.
# Not thread safe.
class Total:
    """A running total."""

    def add(self, x):
        return x
        # nothing else to do


def kept():
    return 1
`;
    expect(await cut(source, ["cached", "Total"])).toBe(`"""Caching."""


def kept():
    return 1
`);
  });

  it("keeps a comment that a blank line sets off from the removed definition", async () => {
    const source = `import os

# Section: helpers

def gone():
    return os.sep


def kept():
    return 1
`;
    expect(await cut(source, ["gone"])).toBe(`# Section: helpers


def kept():
    return 1
`);
  });

  it("rewrites a from-import keeping the names still used, with their as names", async () => {
    const source = `from x import a as alpha, b
from z import f, g
from y import (
    c,
    d,
    e as epsilon,
)  # the y helpers


def keep():
    return alpha() + c() + epsilon + f


def gone():
    return b() + d() + g
`;
    expect(await cut(source, ["gone"])).toBe(`from x import a as alpha
from z import f
from y import (
    c,
    e as epsilon,
)  # the y helpers


def keep():
    return alpha() + c() + epsilon + f
`);
  });

  it("keeps an unused import nobody used, __future__, and an import named in __all__", async () => {
    const source = `from __future__ import annotations

import os
from statkit.report import summarize

__all__ = ["summarize", "keep"]


def keep():
    return 1


def gone():
    return summarize(os)
`;
    expect(await cut(source, ["gone"])).toBe(`from __future__ import annotations

from statkit.report import summarize

__all__ = ["summarize", "keep"]


def keep():
    return 1
`);
    const unused = `import json
import os


def gone():
    return os.sep
`;
    expect(await cut(unused, ["gone"])).toBe("import json\n");
  });

  it("leaves an if TYPE_CHECKING block alone", async () => {
    const source = `from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from statkit.frame import Frame


def keep(f: Frame) -> int:
    return 1


def gone(f: "Frame") -> int:
    return 2
`;
    expect(await cut(source, ["gone"])).toBe(`from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from statkit.frame import Frame


def keep(f: Frame) -> int:
    return 1
`);
  });

  it("keeps an import a kept string annotation names", async () => {
    const source = `from statkit.frame import Frame


def keep(f: "Frame") -> int:
    return 1


def gone(f: Frame) -> int:
    return 2
`;
    expect(await cut(source, ["gone"])).toContain("from statkit.frame import Frame\n");
  });

  it("closes the gap when the first definition after the imports goes, and the end when the last goes", async () => {
    const source = `import math


async def first():
    return math.pi


x = 1


def last():
    return x
`;
    expect(await cut(source, ["first"])).toBe(`x = 1


def last():
    return x
`);
    expect(await cut(source, ["last"])).toBe(`import math


async def first():
    return math.pi


x = 1
`);
  });

  it("keeps CRLF line endings, and ends with a newline a module that had none", async () => {
    const source = "import os\r\n\r\n\r\ndef gone():\r\n    return os.sep\r\n\r\n\r\ndef keep():\r\n    return 1";
    expect(await cut(source, ["gone"])).toBe("def keep():\r\n    return 1\r\n");
    expect(await cut(source, ["keep"])).toBe("import os\r\n\r\n\r\ndef gone():\r\n    return os.sep\r\n");
  });

  it("returns the very same string when nothing is removed, and does not start Python for an empty list", async () => {
    expect(await withoutSymbols(python, THREE, ["absent", "math"])).toBe(THREE);
    expect(await withoutSymbols("/nonexistent/python3", "def (", [])).toBe("def (");
  });

  it("throws naming the line when the module does not parse", async () => {
    await expect(withoutSymbols(python, "x = 1\ndef broken(:\n    pass\n", ["broken"])).rejects.toThrow(/line 2/);
  });

  it("removes a constant, a private helper and the registration calls that use them, and nothing else", async () => {
    const source = [
      '"""Plural rules."""',
      "",
      "import re",
      "",
      "from lex.rules import register",
      "",
      'VOWELS: frozenset[str] = frozenset("aeiou")',
      "",
      'IRREGULAR = {"child": "children"}',
      "",
      "",
      "def _es(word: str) -> str:",
      '    return word + "es"',
      "",
      "",
      'register(re.compile("(s|x)$"), _es)',
      "",
      "",
      "def plural(word: str) -> str:",
      "    return IRREGULAR.get(word, word)",
      "",
    ].join("\n");
    const out = await withoutSymbols(python, source, ["VOWELS", "_es"]);
    expect(out).toBe(
      [
        '"""Plural rules."""',
        "",
        'IRREGULAR = {"child": "children"}',
        "",
        "",
        "def plural(word: str) -> str:",
        "    return IRREGULAR.get(word, word)",
        "",
      ].join("\n"),
    );
    expect((await outlinePython(python, out)).ok).toBe(true);
  });

  it("takes a method node's method out of its class, which stays with its other members", async () => {
    const source = [
      "class Word:",
      '    """A word."""',
      "",
      '    kind = "word"',
      "",
      "    def loud(self) -> str:",
      "        return self.text.upper()",
      "",
      "    @property",
      "    def size(self) -> int:",
      "        return len(self.text)",
      "",
    ].join("\n");
    const out = await withoutSymbols(python, source, ["Word.size"]);
    expect(out).toBe(
      [
        "class Word:",
        '    """A word."""',
        "",
        '    kind = "word"',
        "",
        "    def loud(self) -> str:",
        "        return self.text.upper()",
        "",
      ].join("\n"),
    );
  });

  it("removes an assignment that binds several of the removed names (a, b = ...; c = d = ...), and keeps one binding a kept name too", async () => {
    const source = "_a, _b = 1, 2\n_c = _d = 3\n_e, KEPT = 4, 5\n\n\ndef f():\n    return KEPT\n";
    expect(await withoutSymbols(python, source, ["_a", "_b", "_c", "_d", "_e"])).toBe("_e, KEPT = 4, 5\n\n\ndef f():\n    return KEPT\n");
  });
});
