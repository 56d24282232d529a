import { beforeAll, describe, expect, it } from "vitest";
import { reviewImplementation, reviewTests } from "../../src/review/reply-review.js";
import { findPython } from "../../src/sandbox/python.js";
import { expectAccepted, py, rulesOf } from "./review-helpers.js";

/**
 * Issue 14: what a real module keeps at its top level (constants computed from constants,
 * type aliases, tables built from tables, rules registered at import) is accepted; the same
 * shapes bent to run the reply's own code at import are not.
 */

let python: string;
beforeAll(async () => {
  python = await findPython();
});

const REGISTER = [{ name: "register", path: "lexkit.rules.register" }];
const code = "def plural(word: str) -> str:\n    return word\n";

describe("module-level code a library keeps", () => {
  it("accepts a type alias, a constant computed from constants, and a table built from a table", async () => {
    const support = py`
      _Rule: TypeAlias = Callable[[str], str | None]
      _CONSONANTS = frozenset(string.ascii_lowercase) - VOWELS
      _SINGULAR_OF: dict[str, str] = {plural: singular for singular, plural in IRREGULAR.items()}
      _WIDTH = 2 * len_limit + 1
    `;
    expectAccepted(await reviewImplementation(python, code, "import string\nfrom lexkit.letters import VOWELS", { support }));
  });

  it("accepts the package's own register function as a call and as a decorator, in support code and in tests", async () => {
    const support = py`
      @register
      def _es(word: str) -> str | None:
          return word + "es"


      register(_es)
    `;
    expectAccepted(await reviewImplementation(python, code, "from lexkit.rules import register", { support, registrars: REGISTER }));
    const tests = py`
      from lexkit.rules import register


      def test_register_decorates():
          @register
          def rule(word):
              return word

          assert rule("a") == "a"
    `;
    expectAccepted(await reviewTests(python, tests, REGISTER));
  });
});

describe("the same shapes bent to run code at import", () => {
  it("refuses a comprehension over a view the reply's own class provides", async () => {
    const support = py`
      class _T:
          @classmethod
          def items(cls):
              return [(1, 2)]


      _M = {k: v for k, v in _T.items()}
    `;
    expect(rulesOf(await reviewImplementation(python, code, "", { support }))).toContain("top-level-statement");
  });

  it("refuses a call or decorator named like a registrar but bound elsewhere, or not the package's", async () => {
    const support = "register(_x)\n\n\ndef _x(w):\n    return w\n";
    expect(
      rulesOf(await reviewImplementation(python, code, "from os import system as register", { support, registrars: REGISTER })),
    ).toContain("top-level-statement");
    const decorated = "@register\ndef _x(w):\n    return w\n";
    expect(rulesOf(await reviewImplementation(python, code, "", { support: decorated }))).toContain("decorator-not-allowed");
    const tests = "from os import system as register\n\n\n@register\ndef test_x():\n    assert True\n";
    expect(rulesOf(await reviewTests(python, tests, REGISTER))).toContain("decorator-not-allowed");
  });

  it("still refuses calls of anything but data constructors, also inside operators and comprehensions", async () => {
    for (const support of ["_A = _helper() + 1", "_B = {k: _f(k) for k in KEYS}", "_C = [x for x in _gen()]"]) {
      expect(rulesOf(await reviewImplementation(python, code, "", { support })), support).toContain("top-level-statement");
    }
  });

  it("keeps tests' module level to literals: no operators or comprehensions there", async () => {
    const tests =
      "from lexkit import plural\n\nPLURAL_CASES = [(w, w + 's') for w in WORDS]\n\n\ndef test_plural():\n    assert plural('a')\n";
    expect(rulesOf(await reviewTests(python, tests))).toContain("top-level-statement");
  });

  it("refuses operators, subscripts and iteration at import on a class of the reply's own, whose dunders would run", async () => {
    const enumAdd = "class _E(enum.Enum):\n    A = 1\n\n    def __add__(self, o):\n        return o\n\n\n_X = _E.A + 1\n";
    const getitem = "class _C:\n    pass\n\n\n_T = _C[int]\n";
    const iterate = "class _I:\n    pass\n\n\n_L = [x for x in _I.items()]\n";
    const annotated = "class _D:\n    pass\n\n\n_V: _D[int] = 1\n";
    for (const support of [enumAdd, getitem, iterate, annotated])
      expect((await reviewImplementation(python, code, "import enum", { support })).ok, support).toBe(false);
  });

  it("refuses the dunders Python calls while it builds a class: __init_subclass__, __set_name__, __class_getitem__, an Enum's __init__", async () => {
    for (const [name, base] of [
      ["__init_subclass__", ""],
      ["__set_name__", ""],
      ["__class_getitem__", ""],
      ["__init__", "(enum.Enum)"],
    ]) {
      const support = `class _K${base}:\n    A = 1\n\n    def ${name}(self, *a):\n        return None\n`;
      expect(rulesOf(await reviewImplementation(python, code, "import enum", { support })), name).toContain("class-header");
    }
  });
});
