/**
 * Every rule of the reply review (issue 12), with what it refuses in one line. The ids
 * are stable: they appear in refusal reasons, the failure brief and docs/review-rules.md,
 * which a test keeps complete.
 */
export const REVIEW_RULES = {
  // Checked in TypeScript before Python starts.
  "reply-too-large": "a reply (code and imports together) over 1,000,000 UTF-8 bytes",
  "lone-surrogate": "a lone UTF-16 surrogate, which is not text and makes Python fail",
  "marker-forgery": "a line that looks like a test-block marker, even inside a string",
  "coding-cookie": "a PEP 263 coding comment naming an encoding other than UTF-8",
  // Checked on Python's syntax tree.
  "syntax-error": "a reply that does not parse",
  unreviewable: "a reply the review cannot finish (nesting too deep for the parser or the checker)",
  "top-level-statement": "a module-level statement other than an import, def, class, docstring or assignment of a literal",
  "decorator-not-allowed": "a decorator that is not on the allow-list",
  "decorator-arguments": "a decorator argument that is not data (a call, lambda, comprehension, walrus ...)",
  "default-not-literal": "a default argument value that is not a literal or a (dotted) name",
  "annotation-not-type": "a function or class-level annotation that is not a type expression",
  "class-header": "a class base or keyword that runs code, or a metaclass off the allow-list",
  "class-body-statement": "a class-body statement other than a docstring, pass, def, class or assignment of a literal",
  "interpreter-access": "a use of the interpreter's or the test runner's internals (frames, globals, _pytest, eval ...)",
  "dynamic-module-access": "a module reached through vars(), __dict__ or getattr with a computed name",
  "process-exit": "a way to end or signal the process (os._exit, sys.exit, atexit, signal, raise SystemExit ...)",
  "string-condition": "a skipif/xfail condition given as a string, which pytest evaluates as code",
  "format-traversal": "a format string whose fields walk to a dunder or frame attribute, or one built at run time passed to a formatter",
  "runner-channel": "a way to the runner's file descriptors (os.write, os.dup2, open(5), os.system ...) or PYTEST_CURRENT_TEST",
  "thread-use": "_thread, threading.settrace, sys.setswitchinterval; in tests, any thread or process (threading ...)",
  // Tests only.
  "autouse-fixture": "a fixture with autouse, which runs for tests it was not asked by",
  "pytest-hook": "a function or variable named pytest_* (a hook or pytest_plugins)",
  "module-setup": "a module-level setup or teardown function (setup_module, setUpModule ...)",
  "tests-must-test": "a test function with no assert and no pytest.raises, approx or warns",
  "runner-object": "a fixture that hands out pytest's own objects (pytestconfig ...), or request/caplog/capsys used beyond the listed uses",
  // Implementations only.
  "test-framework-import": "an import of pytest, unittest or mock",
  "writes-tests": "a string pointing under tests/ or naming conftest",
  "implementation-skip": "a skip (unittest.SkipTest, pytest.skip, xfail, importorskip) in an implementation",
  "constant-comparison":
    "a comparison method (__eq__, __lt__ ...) that returns a constant or never uses its object, or is set from outside",
} as const;

export type ReviewRule = keyof typeof REVIEW_RULES;
