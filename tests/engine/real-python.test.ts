import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GenerateResult } from "../../src/engine/generate.js";
import { generateWith, startScriptedModel, type ScriptedModel, type Scripts } from "../helpers/scripted-model.js";
import { unanimous } from "../helpers/votes.js";

/**
 * Issue 14: modules as a person writes them. A constant node, a function with private
 * helpers, a compiled pattern and a table beside it, registration calls filling a table at
 * import, and tests with tables of cases; through the whole engine, answered by a real
 * local OpenAI-compatible server.
 */

const leaf = (
  id: string,
  file: string,
  type: string,
  deps: string[] = [],
  docstring = `The ${id}.`,
  extra: Record<string, unknown> = {},
) => ({
  id,
  name: id,
  type,
  node_type: "leaf",
  file_path: `src/lex/${file}.py`,
  docstring,
  dependencies: deps,
  subgraph_id: "lex",
  ...extra,
});
const method = (id: string, name: string, owner: string) => ({
  ...leaf(id, "words", "method", [], `The ${name} of a word.`, { parent_id: owner }),
  name,
});

const tests = (test_code: string) => ({ test_code, notes: "" });
const impl = (code: string, support = "", imports: string[] = []) => ({ imports, code, support, notes: "" });
const fix = (code: string, support = "", imports: string[] = []) => ({ imports, code, support, explanation: "" });

const WORD_V1 =
  'class Word(Token):\n    """A word of English."""\n\n    kind = "word"\n\n    def __init__(self, text: str) -> None:\n        self.text = text\n';

const SCRIPTS: Scripts = {
  Token: {
    tests: [tests('from lex.words import Token\n\n\ndef test_Token_kind():\n    assert Token.kind == "token"\n')],
    implementation: [impl('class Token:\n    """Any unit of text."""\n\n    kind = "token"\n')],
  },
  Word: {
    tests: [
      tests(
        'from lex.words import Token, Word\n\n\ndef test_Word_is_a_token():\n    w = Word("cat")\n    assert isinstance(w, Token)\n    assert w.kind == "word"\n    assert w.text == "cat"\n',
      ),
      tests('from lex.words import Word\n\n\ndef test_Word_text():\n    assert Word("dog").text == "dog"\n'),
    ],
    implementation: [
      // A class that writes a method node's method itself is refused.
      impl(WORD_V1.replace("self.text = text\n", "self.text = text\n\n    def loud(self) -> str:\n        return self.text\n")),
      impl(WORD_V1),
    ],
    fix: [fix(WORD_V1)],
    diagnosis: unanimous("implementation_bug", "go on"),
  },
  "Word.loud": {
    tests: [tests('from lex.words import Word\n\n\ndef test_loud():\n    assert Word("cat").loud() == "CAT"\n')],
    implementation: [impl('def loud(self) -> str:\n    """The word in upper case."""\n    return self.text.upper()\n')],
  },
  "Word.size": {
    tests: [tests('from lex.words import Word\n\n\ndef test_size():\n    assert Word("cat").size() == 3\n')],
    implementation: [impl('def size(self) -> int:\n    """Its length."""\n    return len(self.text)\n')],
  },
  VOWELS: {
    tests: [
      tests(
        'from lex.letters import VOWELS\n\nVOWELS_EXPECTED = "aeiou"\n\n\ndef test_VOWELS_holds_the_five():\n    assert VOWELS == frozenset(VOWELS_EXPECTED)\n',
      ),
    ],
    implementation: [impl('VOWELS: frozenset[str] = frozenset("aeiou")\n')],
  },
  count_vowels: {
    tests: [
      tests(
        'import pytest\n\nfrom lex.letters import count_vowels\n\nCOUNT_VOWELS_CASES = [("", 0), ("sky", 0), ("queue", 4)]\n\n\n' +
          '@pytest.mark.parametrize("word, n", COUNT_VOWELS_CASES)\ndef test_count_vowels(word, n):\n    assert count_vowels(word) == n\n',
      ),
    ],
    implementation: [impl('def count_vowels(word: str) -> int:\n    """How many vowels."""\n    return sum(c in VOWELS for c in word)\n')],
  },
  register: {
    tests: [
      tests(
        "from lex import registry\nfrom lex.registry import register\n\n\ndef test_register_adds_a_rule():\n    def f(word):\n        return word\n\n    register(f)\n    assert registry._RULES[-1] is f\n",
      ),
    ],
    implementation: [
      impl(
        'def register(rule: Callable[[str], str | None]) -> None:\n    """Adds a rule, tried after those before it."""\n    _RULES.append(rule)\n',
        "_RULES: list[Callable[[str], str | None]] = []",
        ["from collections.abc import Callable"],
      ),
    ],
  },
  rules: {
    tests: [tests("from lex.registry import rules\n\n\ndef test_rules_is_a_list():\n    assert isinstance(rules(), list)\n")],
    implementation: [impl('def rules() -> list:\n    """The registered rules, in order."""\n    return _RULES\n')],
  },
  is_plural: {
    tests: [
      tests(
        'from lex.plurals import is_plural\n\n\ndef test_is_plural():\n    assert is_plural("cats")\n    assert not is_plural("cat")\n',
      ),
    ],
    implementation: [
      impl(
        'def is_plural(word: str) -> bool:\n    """Whether word looks plural."""\n    return word.endswith(_ENDINGS)\n',
        '_ENDINGS = ("s",)',
      ),
    ],
  },
  plural: {
    tests: [
      tests(
        'import pytest\n\nfrom lex.plurals import plural\n\nPLURAL_CASES = [("cat", "cats"), ("box", "boxes"), ("child", "children")]\n\n\n' +
          '@pytest.mark.parametrize("word, expected", PLURAL_CASES)\ndef test_plural(word, expected):\n    assert plural(word) == expected\n',
      ),
    ],
    implementation: [
      // A support name another node of the module already has: refused, and the fix renames it.
      impl(
        'def plural(word: str) -> str:\n    """The plural of word."""\n    return _IRREGULAR.get(word) or _apply(word)\n',
        '_IRREGULAR = {"child": "children"}\n_ENDINGS = ("s", "es")',
      ),
    ],
    fix: [
      fix(
        'def plural(word: str) -> str:\n    """The plural of word."""\n    return _IRREGULAR.get(word) or next(r for r in (f(word) for f in rules()) if r)\n',
        '_IRREGULAR = {"child": "children"}\n_SIBILANT = re.compile("(s|x|z|ch|sh)$")\n\n\ndef _es(word: str) -> str | None:\n    return word + "es" if _SIBILANT.search(word) else None\n\n\ndef _s(word: str) -> str:\n    return word + "s"\n\n\nregister(_es)\nregister(_s)',
        ["import re", "from lex.registry import register, rules"],
      ),
    ],
  },
  hostile: {
    tests: [tests("from lex.hostile import hostile\n\n\ndef test_hostile_doubles():\n    assert hostile(2) == 4\n")],
    implementation: [impl("def hostile(x):\n    return x * 2\n", "import os\nos.system('true')")],
    fix: [
      fix("def hostile(x):\n    return x * 2\n", "_DATA = open('/etc/hostname').read()"),
      fix("def hostile(x):\n    return x * 2\n", "register(_x)\n\n\ndef _x(w):\n    return w", ["from os import system as register"]),
      fix("def hostile(x):\n    return x * 2\n", "PUBLIC = 1"),
    ],
    diagnosis: unanimous("implementation_bug", "go on"),
  },
};

const NODES = [
  leaf("VOWELS", "letters", "constant", [], "The vowels of English."),
  leaf("count_vowels", "letters", "function", ["VOWELS"]),
  leaf("register", "registry", "function"),
  leaf("rules", "registry", "function", ["register"]),
  leaf("is_plural", "plurals", "function"),
  leaf("plural", "plurals", "function", ["register", "rules"]),
  leaf("hostile", "hostile", "function"),
  leaf("Token", "words", "class"),
  leaf("Word", "words", "class", ["Token"]),
  method("Word.loud", "loud", "Word"),
  method("Word.size", "size", "Word"),
];
const EDGES = [{ source: "Word", target: "Token", type: "inherits" }];

let root: string;
let model: ScriptedModel;
let result: GenerateResult;
const out = () => join(root, "out");
const read = (rel: string) => readFileSync(join(out(), rel), "utf8");

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "rpg-forge-real-python-"));
  model = await startScriptedModel(SCRIPTS);
  result = await generateWith(model, NODES, out(), { sandbox: "process", maxIterations: 3, git: false }, EDGES);
}, 180_000);

afterAll(async () => {
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("real Python", () => {
  it("generates a constant as a module-level assignment, tested for its value, and a function that uses it", () => {
    expect(result.checkpoint.nodes.VOWELS!.status).toBe("passed");
    expect(result.checkpoint.nodes.count_vowels!.status).toBe("passed");
    const letters = read("src/lex/letters.py");
    expect(letters).toContain('VOWELS: frozenset[str] = frozenset("aeiou")');
    expect(letters.indexOf("VOWELS: frozenset")).toBeLessThan(letters.indexOf("def count_vowels"));
    expect(read("src/lex/__init__.py")).toMatch(/"VOWELS"/);
  });

  it("keeps tables of cases in the tests, named for their node", () => {
    expect(read("tests/test_letters.py")).toContain('COUNT_VOWELS_CASES = [("", 0), ("sky", 0), ("queue", 4)]');
    expect(result.checkpoint.nodes.count_vowels!.test_results.passed).toBe(3);
  });

  it("places support code beside its symbol: private tables and helpers before it, and the registrations that fill a table at import", () => {
    expect(result.checkpoint.nodes.plural!.status).toBe("passed");
    const plurals = read("src/lex/plurals.py");
    for (const part of [
      '_IRREGULAR = {"child": "children"}',
      "_SIBILANT = re.compile(",
      "def _es(",
      "def _s(",
      "register(_es)\nregister(_s)",
    ])
      expect(plurals).toContain(part);
    expect(plurals.indexOf("def _s(")).toBeLessThan(plurals.indexOf("def plural("));
    expect(read("src/lex/registry.py")).toMatch(/_RULES: list\[Callable\[\[str\], str \| None\]\] = \[\]\n\n\ndef register/);
    expect(result.checkpoint.nodes.plural!.owns).toEqual(["plural", "_IRREGULAR", "_SIBILANT", "_es", "_s"]);
  });

  it("refuses a support name the module already has, and the fix that renames it passes", () => {
    const refusal = model.requestsOf("plural", "fix")[0]!.body.messages as { content: string }[];
    expect(refusal.at(-1)!.content).toContain("the support code defines _ENDINGS, which src/lex/plurals.py already has");
  });

  it("refuses support code that runs anything at import but data and the package's own registrations", () => {
    const entry = result.checkpoint.nodes.hostile!;
    expect(entry.status).toBe("failed");
    const outcomes = entry.failure_context!.attempts.map((a) => a.outcome).join("\n");
    expect(outcomes).toMatch(/support line 2: "os\.system\('true'\)" would run at import/);
    expect(outcomes).toMatch(/review refused the code: support line 1: "_DATA = open\('\/etc\/hostname'\)\.read\(\)" would run at import/);
    // A function named like a registrar but imported from elsewhere is not the package's.
    expect(outcomes).toMatch(/support line 1: "register\(_x\)" would run at import/);
    expect(outcomes).toMatch(/"PUBLIC" must start with "_"/);
    // A failed node leaves nothing behind.
    expect(existsSync(join(out(), "src/lex/hostile.py"))).toBe(false);
  });

  it("fills a class with its method nodes, one by one, and refuses a class that writes them itself", () => {
    for (const id of ["Token", "Word", "Word.loud", "Word.size"]) expect(result.checkpoint.nodes[id]!.status, id).toBe("passed");
    const words = read("src/lex/words.py");
    expect(words).toMatch(/class Word\(Token\):\n {4}"""A word of English."""\n\n {4}kind = "word"\n/);
    expect(words).toMatch(/\n {4}def loud\(self\) -> str:\n {8}"""The word in upper case."""\n {8}return self.text.upper\(\)\n/);
    expect(words).toMatch(/\n {4}def size\(self\) -> int:/);
    expect(words.indexOf("class Token")).toBeLessThan(words.indexOf("class Word"));
    expect(result.checkpoint.nodes["Word.loud"]!.owns).toEqual(["Word.loud"]);
    const refusal = model.requestsOf("Word", "fix")[0]!.body.messages as { content: string }[];
    expect(refusal.at(-1)!.content).toContain("loud is a node of its own: leave it out of the class");
    // The package exports the classes, not their methods.
    expect(read("src/lex/__init__.py")).not.toMatch(/"loud"|"size"/);
    // The methods' tests import the class.
    expect(read("tests/test_words.py")).toContain("from lex.words import Word");
  });

  it("keeps the methods of its method nodes when the class itself is generated again", async () => {
    const again = await generateWith(
      model,
      NODES,
      out(),
      { sandbox: "process", maxIterations: 3, git: false, mode: "resume", only: ["Word"] },
      EDGES,
    );
    expect(again.checkpoint.nodes.Word!.status).toBe("passed");
    const words = read("src/lex/words.py");
    expect(words).toMatch(/\n {4}def loud\(self\) -> str:/);
    expect(words).toMatch(/\n {4}def size\(self\) -> int:/);
    expect(read("tests/test_words.py")).toContain("def test_Word_text():");
  });
});
