/**
 * The reviewer, in Python because only Python's own parser reads Python right. It is
 * run as `python3 -I -c` with `{"kind": "tests" | "implementation", "parts": [[name,
 * source], ...]}` on stdin and prints `{"findings": [[rule, line, message, part], ...],
 * "total": n}`. It only parses (ast.parse never executes the reply) and walks each tree
 * once (again only the bodies of comparison methods and of functions taking a restricted
 * fixture); checks that need every binding of the reply (what `wraps` or `os` stands for)
 * are queued during the walk and run at its end. The rules are in docs/review-rules.md.
 * REVIEW_PY defines `review_reply(request)`, which returns that output, so that the code
 * application's script reviews a reply with this very code; REVIEW_SCRIPT runs it on stdin.
 */
export const REVIEW_PY = String.raw`
import ast, gc, json, re, sys

gc.disable()  # the review makes no cycles to collect, and scanning a large tree over and over doubles its time

I, X = "interpreter-access", "process-exit"
BANNED = dict.fromkeys((
    "_pytest pluggy builtins __builtin__ importlib ctypes _ctypes gc inspect runpy code codeop marshal _pickle "
    "sys.modules sys._getframe sys._current_frames sys.settrace sys.setprofile sys.meta_path sys.path_hooks "
    "sys.addaudithook pickle.load pickle.loads pickle.Unpickler types.FunctionType types.CodeType pytest.main __main__ "
    "sys.exc_info sys.exception sys.last_traceback sys.last_value sys.last_exc traceback.walk_stack traceback.walk_tb").split(), I)
BANNED.update(dict.fromkeys(["atexit", "signal", "_signal", "faulthandler", "sys.exit", "pytest.exit"] + [
    m + "." + f for m in ("os", "posix", "nt")
    for f in "_exit abort kill killpg execl execle execlp execlpe execv execve execvp execvpe".split()], X))
# Resolvers that import a module and walk attributes from a string ("unittest.case:SkipTest", "ext://sys.modules"),
# and modules that run a string as code or trace the interpreter: importlib by another name.
BANNED.update(dict.fromkeys((
    "pkgutil.resolve_name pkgutil.get_loader pkgutil.find_loader pkgutil.get_importer pydoc zipimport imp logging.config "
    "timeit.timeit timeit.repeat timeit.Timer timeit.main profile cProfile pdb bdb trace doctest typing.ForwardRef").split(), I))
F, C, T, S = "format-traversal", "runner-channel", "thread-use", "implementation-skip"
BANNED["_string"] = F  # formatter_field_name_split: str.format's attribute walk by hand
# Tracing threads or starving the test's own thread; _thread starts threads no one joins.
BANNED.update(dict.fromkeys(["_thread", "threading.settrace", "threading.setprofile", "threading.settrace_all_threads",
                             "threading.setprofile_all_threads", "sys.setswitchinterval"], T))
# The runner's file descriptors (the verdict channel is one): write to, duplicate or close one, or start a child that
# inherits them (a shell's "printf ... >&5"). Opening one by number is checked at the call (OPENERS).
BANNED.update(dict.fromkeys(["pty"] + [
    m + "." + f for m in ("os", "posix", "nt")
    for f in ("write writev pwrite pwritev sendfile dup dup2 close closerange fdopen pipe pipe2 set_inheritable openpty "
              "login_tty system popen spawnl spawnle spawnlp spawnlpe spawnv spawnve spawnvp spawnvpe posix_spawn "
              "posix_spawnp").split()], C))
# Tests only: a worker thread or process runs code with no test on its stack, where nothing of the test is to blame.
TESTS_BANNED = dict.fromkeys("threading concurrent.futures multiprocessing asyncio.to_thread os.fork os.forkpty".split(), T)
# Implementations only: a skip is the tests' to decide; an implementation that skips its tests hides a wrong answer.
IMPL_BANNED = dict.fromkeys((
    "SkipTest unittest.SkipTest unittest.case unittest.skip unittest.skipIf unittest.skipUnless unittest.expectedFailure "
    "pytest.skip pytest.skipif pytest.xfail pytest.importorskip pytest.mark.skip pytest.mark.skipif pytest.mark.xfail").split(), S)
SPLIT_BANS = {k for k in {**TESTS_BANNED, **IMPL_BANNED} if "." not in k}
WHY = {I: "reaches into the interpreter or the test runner", X: "can end or signal the process",
       C: "reaches the test runner's file descriptors or which test runs", T: "runs code away from the test (a thread, "
       "a process) or traces threads", S: "skips tests, which is for the tests to decide, not the implementation",
       F: "walks attributes through a format string"}
# Format strings: an attribute of a {field} that is a dunder or a frame's walks from an argument to the interpreter's
# internals ("{e.__traceback__.tb_frame.f_back}"), as getattr would.
FIELD = re.compile(r"\{([^{}!:]*)")
INDEX = re.compile(r"\[[^\]]*\]?")
FIELD_DANGER = re.compile(r"__|^(f|tb|gi|cr|ag|co|func)_", re.I)
BUILT_FIELD = re.compile(r"\{[^{}!:\s\"']*[.\[]")  # a field with an attribute or an index, in a string built at run time
FORMAT_METHODS = {"format", "format_map", "vformat"}
OPENERS = {"open", "io.open", "_io.open", "io.FileIO", "_io.FileIO", "codecs.open"}
ENVIRON_GETS = {"os.getenv", "os.environ.get", "os.environ.pop", "os.environ.setdefault", "os.getenvb", "os.environb.get"}
FD_PATH = re.compile(r"/(proc/[^/]*|dev)/fd(/|$)")
NAMES = dict(dict.fromkeys("__builtins__ __import__ eval exec compile breakpoint globals locals __loader__ __spec__ __main__".split(), I),
             exit=X, quit=X)
ATTRS = frozenset(("__globals__ __builtins__ __code__ __closure__ __subclasses__ __bases__ __base__ __mro__ mro __loader__ "
                   "__spec__ __main__ __self__ __traceback__ f_globals f_locals f_back f_builtins f_code gi_frame cr_frame "
                   "ag_frame tb_frame pluginmanager").split())
# A computed attribute name is refused when a literal part of it holds one of these (getattr(tb, "tb_" + "frame")); a
# name with no such part stays allowed, so getattr(self, "visit_" + kind) is fine.
DANGER = re.compile(r"__|modules|(f|tb|gi|cr|ag|co|func)_", re.I)
NAMED_DANGER = re.compile(r"__|modules|^(f|tb|gi|cr|ag|co|func)_", re.I)  # the same, for a name known in full
GETATTRS = {"getattr", "setattr", "delattr", "hasattr"}
DUNDER_GETATTRS = {"__getattribute__", "__getattr__", "__setattr__", "__delattr__"}
# Refused unless called directly by name: as a value (g = getattr, reduce(getattr, ...)) they hide their arguments.
CALL_ONLY = {"getattr", "setattr", "delattr", "vars", "operator.attrgetter", "operator.methodcaller"}
STRING_PATHS = re.compile(r"^(_pytest|pluggy)(\.|$)|^__main__\.")
# Tests only: fixtures that hand out pytest's own objects (config, plugin manager, a pytester), and the fixtures
# whose objects lead there, with what a test may use of them ("call": only called, "value": read).
RUNNER_FIXTURES = {"pytestconfig", "record_testsuite_property", "pytester", "testdir"}
RUNNER_ATTRS = {"_outcome", "_pyfuncitem", "_item", "_fixturemanager", "_request"}
CAPTURE = {"readouterr": "call", "disabled": "call"}
RESTRICTED = dict({c: CAPTURE for c in ("capsys", "capfd", "capsysbinary", "capfdbinary")},
                  request={"param": "value", "node": "name", "getfixturevalue": "literal", "addfinalizer": "call"},
                  caplog=dict(dict.fromkeys(("text", "records", "record_tuples", "messages"), "value"),
                              clear="call", set_level="call", at_level="call"),
                  cache=dict.fromkeys(("get", "set", "mkdir"), "call"))
FUNCTOOLS = "wraps lru_cache cache cached_property total_ordering singledispatch singledispatchmethod".split()
BARE = dict({n: "functools." + n for n in FUNCTOOLS}, dataclass="dataclasses.dataclass", field="dataclasses.field",
            abstractmethod="abc.abstractmethod", contextmanager="contextlib.contextmanager",
            asynccontextmanager="contextlib.asynccontextmanager", overload="typing.overload", final="typing.final",
            auto="enum.auto", unique="enum.unique", fixture="pytest.fixture", mark="pytest.mark", param="pytest.param",
            raises="pytest.raises", approx="pytest.approx", warns="pytest.warns")
DECORATORS = {"staticmethod", "classmethod", "property", "dataclasses.dataclass", "abc.abstractmethod", "typing.overload",
              "typing.final", "enum.unique", "contextlib.contextmanager", "contextlib.asynccontextmanager"} | {"functools." + n for n in FUNCTOOLS}
# Calls that only build a value from their arguments; allowed with data arguments where values are (decorator
# arguments, class-level assignments), so that parametrize([float("nan"), Decimal("1.5")]) needs no workaround.
VALUES = {"range", "float", "int", "str", "bytes", "complex", "bool", "tuple", "list", "dict", "set", "frozenset",
          "decimal.Decimal", "fractions.Fraction", "datetime.date", "datetime.datetime", "datetime.time", "datetime.timedelta"}
CLASS_CALLS = VALUES | {"dataclasses.field", "enum.auto", "re.compile"}
METACLASSES = {"type", "abc.ABCMeta", "enum.EnumMeta", "enum.EnumType"}
COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}
MODULE_SETUP = {"setup_module", "teardown_module", "setUpModule", "tearDownModule", "setup_function", "teardown_function", "setup", "teardown"}
FRAMEWORKS = {"pytest", "_pytest", "unittest", "mock"}
ASSERTING = {"pytest.raises", "pytest.approx", "pytest.warns", "pytest.fail", "pytest.deprecated_call"}
CONDITIONAL = {"pytest.mark.skipif", "pytest.mark.xfail"}
NUMERIC_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)
TESTS_PATH = re.compile(r"(^|[\\/])tests([\\/]|$)|conftest|(^|[\\/])test_\w*\.py", re.I)
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def chain(n):
    parts = []
    while isinstance(n, ast.Attribute):
        parts.append(n.attr)
        n = n.value
    return (parts + [n.id])[::-1] if isinstance(n, ast.Name) else None


def numeric(n):
    if isinstance(n, ast.Constant):
        return type(n.value) in (int, float, complex, bool)
    if isinstance(n, ast.UnaryOp):
        return numeric(n.operand)
    return isinstance(n, ast.BinOp) and isinstance(n.op, NUMERIC_OPS) and numeric(n.left) and numeric(n.right)


def value(n, ops, call=None):
    """Data: constants, (dotted) names, containers of data; with ops, operators on data; calls as call() decides."""
    t = type(n)
    if t in (ast.Constant, ast.Name):
        return True
    if t is ast.Attribute:
        return chain(n) is not None
    if t in (ast.Tuple, ast.List, ast.Set):
        return all(value(e, ops, call) for e in n.elts)
    if t is ast.Dict:
        return all(value(e, ops, call) for e in n.keys + n.values if e is not None)
    if t is ast.Starred:
        return value(n.value, ops, call)
    if t in (ast.UnaryOp, ast.BinOp) and numeric(n):
        return True
    if ops and t is ast.UnaryOp:
        return value(n.operand, ops, call)
    if ops and t is ast.BinOp:
        return value(n.left, ops, call) and value(n.right, ops, call)
    if ops and t is ast.BoolOp:
        return all(value(e, ops, call) for e in n.values)
    if ops and t is ast.Compare:
        return all(value(e, ops, call) for e in [n.left] + n.comparators)
    return t is ast.Call and call is not None and call(n)


def typ(n):
    """A type expression; a string one too (typing.get_type_hints evaluates it), read as the expression it holds."""
    t = type(n)
    if t is ast.Constant and isinstance(n.value, str):
        try:
            return typ(ast.parse(n.value.strip(), mode="eval").body)
        except (SyntaxError, ValueError):
            return False
    if t in (ast.Constant, ast.Name):
        return True
    if t is ast.Attribute:
        return chain(n) is not None
    if t is ast.Subscript:
        s = n.slice.value if type(n.slice).__name__ == "Index" else n.slice
        items = s.elts if isinstance(s, ast.Tuple) else [s]
        name = (chain(n.value) or [""])[-1]
        if name == "Literal":  # Literal["a b"] holds values, Annotated[int, "meta"] metadata, not types
            return all(value(e, False) for e in items)
        if name == "Annotated":
            return typ(items[0]) and all(value(e, False) for e in items[1:])
        return chain(n.value) is not None and typ(s)
    if t in (ast.Tuple, ast.List):
        return all(typ(e) for e in n.elts)
    return t is ast.BinOp and isinstance(n.op, ast.BitOr) and typ(n.left) and typ(n.right)


def boolean(n):
    """An expression that can only be a bool, never a string for pytest to eval."""
    if isinstance(n, ast.Constant):
        return isinstance(n.value, bool)
    if isinstance(n, ast.BoolOp):
        return all(boolean(e) for e in n.values)
    return isinstance(n, ast.Compare) or isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)


def names_only(n):
    if isinstance(n, (ast.Tuple, ast.List)):
        return all(names_only(e) for e in n.elts)
    return isinstance(n, ast.Name) or isinstance(n, ast.Starred) and isinstance(n.value, ast.Name)


def fragments(n):
    """The string constants of an expression, in source order: the literal parts of a computed name."""
    out, stack = [], [n]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Constant) and isinstance(x.value, (str, bytes)):
            out.append(x.value if isinstance(x.value, str) else x.value.decode("latin-1"))
        stack.extend(reversed(list(ast.iter_child_nodes(x))))
    return out


def dangerous(n):
    """A literal part (or the literal parts joined) of a computed attribute name that names something refused."""
    parts = fragments(n)
    return next((p for p in parts + ["".join(parts)] if DANGER.search(p)), None)


def field_danger(text):
    """The first {field} of a format string with an attribute that is a dunder or a frame's, as (field, attribute).
    A part of a string built at run time may begin inside a field (".f_locals[key]}"): the text before a first "}"
    counts as a field too."""
    text = text.replace("{{", "").replace("}}", "")
    fields = [m.group(1) for m in FIELD.finditer(text)]
    close, start = text.find("}"), text.find("{")
    if close >= 0 and not 0 <= start < close:
        fields.append(text[:close])
    for field in fields:
        for attr in INDEX.sub("", field).split(".")[1:]:
            if FIELD_DANGER.search(attr):
                return field, attr
    return None


def variable(n):
    """A name, a dotted name or a subscript of one: a format string the review cannot see, allowed as ordinary."""
    return isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)) and chain(n.value if isinstance(n, ast.Subscript) else n) is not None


def literal_text(n):
    """A string the reply wrote out: a constant, a call on constants ("...".strip(), textwrap.dedent("...")), a choice
    between such. Its text is checked where it stands."""
    if isinstance(n, ast.Constant):
        return True
    if isinstance(n, (ast.IfExp, ast.BoolOp)):
        return all(literal_text(e) or variable(e) for e in ([n.body, n.orelse] if isinstance(n, ast.IfExp) else n.values))
    if isinstance(n, ast.Call):
        receiver = n.func.value if isinstance(n.func, ast.Attribute) and chain(n.func) is None else None
        return (receiver is None or literal_text(receiver)) and all(isinstance(a, ast.Constant) for a in n.args) and \
            all(isinstance(k.value, ast.Constant) for k in n.keywords)
    return False


def built(n):
    """A format string computed at run time: concatenated, repeated, %-formatted, an f-string, joined ..."""
    return n is not None and not literal_text(n) and not variable(n)


def parents(fn):
    out = {}
    for s in fn.body:
        for p in ast.walk(s):
            for c in ast.iter_child_nodes(p):
                out[c] = p
    return out


def snippet(n):
    try:
        text = ast.unparse(n).split("\n")[0]
    except Exception:
        text = type(n).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def scope_props(body):
    """Names whose attributes may decorate: a property's setter/getter/deleter, a singledispatch's register."""
    out = {}
    for s in body:
        for d in getattr(s, "decorator_list", ()):
            p = chain(d.func if isinstance(d, ast.Call) else d) or [""]
            if p == ["property"] or len(p) == 2 and p[1] in ("setter", "getter", "deleter"):
                out[s.name] = ("setter", "getter", "deleter")
            elif p[-1] in ("singledispatch", "singledispatchmethod"):
                out[s.name] = ("register",)
    return out


class Review:
    def __init__(self, tests, registrars=()):
        self.tests, self.out, self.later, self.records = tests, [], [], []
        self.code_names = set()  # functions and classes the reply defines: what a call at import must not reach
        # The package's own functions that support code may call at import, to register its helpers: name -> dotted path.
        self.registrars = dict(registrars)
        self.imports, self.local, self.modules, self.part = {}, set(), set(), "code"
        self.callees = set()  # id() of every called expression: a name used otherwise is a value
        self.bans = {**BANNED, **(TESTS_BANNED if tests else IMPL_BANNED)}
        self.inner = set()  # id() of the strings built inside another, checked with it

    def add(self, rule, line, message):
        self.out.append((rule, line, message, self.part))

    def defer(self, fn, *args):
        self.later.append((self.part, fn, args))

    def known(self, parts):
        """What a dotted name stands for, or None when the reply binds its root itself or ambiguously."""
        if not parts or parts[0] in self.local or len(self.imports.get(parts[0], ())) > 1:
            return None
        root = next(iter(self.imports[parts[0]])) if parts[0] in self.imports else BARE.get(parts[0], parts[0])
        return ".".join([root] + parts[1:])

    def possible(self, parts):
        """Everything a dotted name may stand for: through each import of its root, else as written or assumed.
        A root the reply binds itself (a variable named signal) is taken for a module only below a module that
        is not banned whole (os._exit), where no variable plausibly bears the name."""
        root, rest = parts[0], parts[1:]
        if root in self.imports:
            return {".".join([t] + rest) for t in self.imports[root]}
        if root in self.local and root in self.bans:
            return set()
        return {".".join(parts), ".".join([BARE.get(root, root)] + rest)}

    def banned(self, dotted, line, shown=None):
        bits = dotted.split(".")
        for i in range(1, len(bits) + 1):
            rule = self.bans.get(".".join(bits[:i]))
            if rule:
                said = '"%s"' % dotted if shown in (None, dotted) else '"%s" (%s)' % (shown, dotted)
                self.add(rule, line, "%s %s" % (said, WHY[rule]))
                return True
        return False

    def walk(self, part, tree):
        self.part = part
        stack = [(tree, None, None, {})]
        while stack:
            node, rec, scope, props = stack.pop()
            kids = self.visit(node, rec, scope, props)
            if kids is None:
                kids = [(c, rec, None, props) for c in ast.iter_child_nodes(node)]
            stack.extend(reversed(kids))

    def visit(self, n, rec, scope, props):
        t = type(n)
        if t is ast.Module:
            self.defer(self.body, n.body, "top-level-statement", True)
            inner = scope_props(n.body)
            return [(s, None, "module", inner) for s in n.body]
        if t in (ast.Import, ast.ImportFrom):
            return self.imported(n)
        if t in DEFS or t is ast.Lambda:
            return self.function(n, rec, scope, props)
        if t is ast.ClassDef:
            return self.klass(n, rec, scope, props)
        if t is ast.Name:
            if isinstance(n.ctx, ast.Store):
                self.local.add(n.id)
                if self.tests and n.id.startswith("pytest_"):
                    self.add("pytest-hook", n.lineno, '"%s" is read by pytest as configuration' % n.id)
            else:
                if n.id in NAMES:
                    self.defer(self.name, n.id, n.lineno)
                if id(n) not in self.callees:
                    self.defer(self.as_value, [n.id], n.lineno)
                if n.id in SPLIT_BANS:  # raise SkipTest from another node's import
                    self.defer(self.dotted, [n.id], n.lineno)
            if rec:
                rec[3].append([n.id])
        elif t is ast.Attribute:
            parts = chain(n)
            for a in parts[1:] if parts else [n.attr]:
                if a in ATTRS:
                    self.add(I, n.lineno, 'attribute "%s" %s' % (a, WHY[I]))
                if self.tests and a in RUNNER_ATTRS:
                    self.add("runner-object", n.lineno, 'attribute "%s" leads to pytest\'s own objects' % a)
            if self.tests and n.attr == "run_in_executor":
                self.add(T, n.lineno, '"%s" %s' % (snippet(n), WHY[T]))
            if not self.tests and isinstance(n.ctx, ast.Store) and n.attr in COMPARISONS:
                self.add("constant-comparison", n.lineno, '"%s" sets a comparison method from outside its class' % snippet(n))
            if parts is None:
                return None
            self.defer(self.dotted, parts, n.lineno)
            if id(n) not in self.callees:
                self.defer(self.as_value, parts, n.lineno)
            if rec:
                rec[3].append(parts)
            return []
        elif t is ast.Call:
            self.callees.add(id(n.func))
            self.call(n, rec)
        elif t is ast.Raise and n.exc is not None and chain(n.exc):
            self.defer(self.raised, chain(n.exc), n.lineno)
        elif t is ast.Assert and rec:
            rec[2] = True
        elif t in (ast.BinOp, ast.JoinedStr) and id(n) not in self.inner:
            self.built_string(n)
        elif t is ast.Subscript and chain(n.value) and chain(n.value)[-1] in ("environ", "environb") \
                and not isinstance(n.slice, ast.Constant):
            self.defer(self.environ_key, chain(n.value), n.slice, n.lineno)
        elif t is ast.Expr and isinstance(n.value, ast.Constant):
            return []
        elif t is ast.Constant and isinstance(n.value, (str, bytes)):
            text = n.value if isinstance(n.value, str) else n.value.decode("latin-1")
            if text in ATTRS and text not in ("mro", "__main__"):
                self.add(I, n.lineno, 'the string "%s" names an attribute that %s' % (text, WHY[I]))
            if STRING_PATHS.match(text):
                self.add(I, n.lineno, 'the string "%s" names a module that %s' % (snippet(n)[1:-1], WHY[I]))
            if not self.tests and text in COMPARISONS:
                self.add("constant-comparison", n.lineno, 'the string "%s" names a comparison method, to set it from outside' % text)
            if not self.tests and TESTS_PATH.search(text):
                self.add("writes-tests", n.lineno, "the string %s points at the tests" % snippet(n))
            if isinstance(n.value, str):
                for rule, message in self.string_findings(text):
                    self.add(rule, n.lineno, "the string %s %s" % (snippet(n), message))
        return None

    def string_findings(self, text):
        """What a string's text gives away, written out or built at run time: a format field walking to a dunder or a
        frame, the variable naming the running test, a path to a file descriptor, a skip."""
        out = []
        danger = field_danger(text)
        if danger:
            out.append((F, 'has the format field "%s", whose attribute "%s" is a dunder or a frame\'s' % danger))
        if "PYTEST_CURRENT_TEST" in text.upper():
            out.append((C, "names PYTEST_CURRENT_TEST, which tells which test runs"))
        if FD_PATH.search(text):
            out.append((C, "is a path to a file descriptor, one of the runner's"))
        if not self.tests and "SKIPTEST" in text.upper():
            out.append((S, "names SkipTest; %s" % WHY[S]))
        return out

    def built_string(self, n):
        """A string built at run time, checked as the text its literal parts make when joined in order, so that
        "{e.__trace" + "back__}" and "PYTEST_" + "CURRENT_TEST" are read whole."""
        parts, stack = [], [n]
        while stack:
            x = stack.pop()
            if isinstance(x, (ast.BinOp, ast.JoinedStr)):
                self.inner.add(id(x))
            if isinstance(x, ast.Constant) and isinstance(x.value, str):
                parts.append(x.value)
            stack.extend(reversed(list(ast.iter_child_nodes(x))))
        if not parts:
            return
        text = "".join(parts)
        alone = {rule for p in parts for rule, _ in self.string_findings(p)}
        for rule, message in self.string_findings(text):
            if rule not in alone:
                self.add(rule, n.lineno, "a string built at run time %s" % message)
        if F not in alone and BUILT_FIELD.search(text.replace("{{", "").replace("}}", "")):
            self.add(F, n.lineno, "a format field with an attribute or an index is built at run time: %s" % snippet(n))

    def imported(self, n):
        line = n.lineno
        if isinstance(n, ast.Import):
            for a in n.names:
                bound = a.asname or a.name.split(".")[0]
                self.imports.setdefault(bound, set()).add(a.name if a.asname else bound)
                self.modules.add(bound)
                self.banned(a.name, line)
                if not self.tests and a.name.split(".")[0] in FRAMEWORKS:
                    self.add("test-framework-import", line, 'an implementation may not import "%s"' % a.name)
            return []
        mod = "." * n.level + (n.module or "")
        if not self.tests and n.level == 0 and mod.split(".")[0] in FRAMEWORKS:
            self.add("test-framework-import", line, 'an implementation may not import from "%s"' % mod)
        for a in n.names:
            if a.name == "*":
                rule = self.bans.get(mod) or next((r for k, r in self.bans.items() if k.startswith(mod + ".")), None)
                if rule and n.level == 0:
                    self.add(rule, line, '"from %s import *" brings in names that %s' % (mod, WHY[rule]))
                continue
            self.imports.setdefault(a.asname or a.name, set()).add(mod + "." + a.name)
            if n.level == 0:
                self.banned(mod + "." + a.name, line)
        return []

    def function(self, n, rec, scope, props):
        a = n.args
        positional = getattr(a, "posonlyargs", []) + a.args
        pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        what = "a lambda" if isinstance(n, ast.Lambda) else '"%s"' % n.name
        for arg, d in pairs:
            if not value(d, False):
                self.add("default-not-literal", d.lineno, 'the default of "%s" in %s must be a literal or a name, not %s'
                         % (arg.arg, what, snippet(d)))
        for arg in positional + a.kwonlyargs + [a.vararg, a.kwarg]:
            if arg is None:
                continue
            self.local.add(arg.arg)
            if arg.annotation is not None and not typ(arg.annotation):
                self.add("annotation-not-type", arg.annotation.lineno, 'the annotation of "%s" in %s runs code: %s'
                         % (arg.arg, what, snippet(arg.annotation)))
        if isinstance(n, ast.Lambda):
            return None
        self.local.add(n.name)
        self.code_names.add(n.name)
        if n.returns is not None and not typ(n.returns):
            self.add("annotation-not-type", n.returns.lineno, 'the return annotation of %s runs code: %s' % (what, snippet(n.returns)))
        for d in n.decorator_list:
            self.defer(self.decorator, d, props)
        if self.tests and n.name.startswith("pytest_"):
            self.add("pytest-hook", n.lineno, '%s would be called by pytest as a hook' % what)
        if self.tests and scope == "module" and n.name in MODULE_SETUP:
            self.add("module-setup", n.lineno, '%s runs around every test of the shared test file' % what)
        body = n.body[1:] if n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant) else n.body
        if not self.tests and n.name in COMPARISONS and len(body) == 1 and isinstance(body[0], ast.Return) \
                and isinstance(body[0].value, ast.Constant):
            self.add("constant-comparison", n.lineno, '%s always returns %r' % (what, body[0].value.value))
        elif not self.tests and n.name in COMPARISONS:
            self.comparison(n, positional, what)
        if self.tests:
            self.fixtures(n, positional + a.kwonlyargs, what)
        inner = rec
        if self.tests and scope in ("module", "testclass") and n.name.startswith("test"):
            inner = [n.name, n.lineno, False, []]
            self.records.append(inner)
        outside = [(c, rec, None, props) for c in n.decorator_list + [a] + ([n.returns] if n.returns else [])]
        own = scope_props(n.body)
        return outside + [(s, inner, None, own) for s in n.body]

    def klass(self, n, rec, scope, props):
        self.local.add(n.name)
        self.code_names.add(n.name)
        for d in n.decorator_list:
            self.defer(self.decorator, d, props)
        for b in n.bases:
            if not typ(b):
                self.add("class-header", b.lineno, 'the base %s of class "%s" runs code' % (snippet(b), n.name))
        for k in n.keywords:
            if k.arg == "metaclass":
                self.defer(self.metaclass, n.name, k.value)
            elif k.arg is None or not value(k.value, False):
                self.add("class-header", k.value.lineno, 'the class keyword %s of "%s" must be a literal' % (k.arg or "**", n.name))
        self.defer(self.body, n.body, "class-body-statement", False)
        # Python calls these while it builds classes, at import: __init_subclass__ for a subclass defined later,
        # __set_name__ for an attribute's value, __class_getitem__ in an annotation, and an Enum's __init__ and
        # __new__ once per member. A reply's class may not define them.
        is_enum = any((chain(b) or [""])[-1] in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag") for b in n.bases)
        for m in n.body:
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    m.name in ("__init_subclass__", "__set_name__", "__class_getitem__") or is_enum and m.name in ("__init__", "__new__")):
                self.add("class-header", m.lineno, '"%s.%s" would run while the class is built, at import' % (n.name, m.name))
        for s in n.body if not self.tests else ():
            targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) and s.value else []
            for x in targets:
                if isinstance(x, ast.Name) and x.id in COMPARISONS and not (
                        isinstance(s.value, ast.Constant) and s.value.value is None or (chain(s.value) or [""])[-1] in COMPARISONS):
                    self.add("constant-comparison", s.lineno, '"%s" of "%s" is set to %s, not a method that compares'
                             % (x.id, n.name, snippet(s.value)))
        testclass = self.tests and scope in ("module", "testclass") and n.name.startswith("Test")
        outside = [(c, rec, None, props) for c in n.decorator_list + n.bases + n.keywords]
        own = scope_props(n.body)
        return outside + [(s, rec, "testclass" if testclass else None, own) for s in n.body]

    def comparison(self, n, positional, what):
        """A comparison method that never looks at its own object compares nothing: return other == other."""
        first = positional[0].arg if positional else n.args.vararg.arg if n.args.vararg else None
        nodes = [x for s in n.body for x in ast.walk(s)]
        if any(isinstance(x, ast.Name) and x.id == first for x in nodes):
            return
        if any(isinstance(x, ast.Return) and x.value is not None and not (
                isinstance(x.value, ast.Constant) and x.value.value is None or chain(x.value) == ["NotImplemented"]) for x in nodes):
            self.add("constant-comparison", n.lineno, '%s never uses "%s", so its answer does not depend on the object' % (what, first))

    def fixtures(self, n, params, what):
        """Tests only: pytest's own objects stay out of reach (request.config, caplog._item, capsys.request lead to
        the plugin manager and rpg-forge's verdict plugin); the fixtures that hold them may be used only as listed."""
        above = None
        for arg in params:
            if arg.arg in RUNNER_FIXTURES:
                self.add("runner-object", arg.lineno, 'the fixture "%s" in %s is pytest\'s own object' % (arg.arg, what))
            elif arg.arg in RESTRICTED:
                above = above or parents(n)
                for x, p in above.items():
                    if isinstance(x, ast.Name) and x.id == arg.arg and not self.allowed_use(x, p, above.get(p), RESTRICTED[x.id]):
                        use = snippet(p if isinstance(p, ast.Attribute) else x)
                        allowed = sorted(k + ".name" if v == "name" else k for k, v in RESTRICTED[x.id].items())
                        self.add("runner-object", x.lineno, '"%s" uses the fixture "%s" beyond %s' % (use, x.id, ", ".join(allowed)))

    def allowed_use(self, x, p, grand, allowed):
        if not (isinstance(p, ast.Attribute) and p.value is x and isinstance(x.ctx, ast.Load)):
            return False
        how = allowed.get(p.attr)
        if how == "value":
            return True
        if how == "name":
            return isinstance(grand, ast.Attribute) and grand.attr == "name"
        called = isinstance(grand, ast.Call) and grand.func is p
        if how == "literal":
            return called and not grand.keywords and len(grand.args) == 1 and isinstance(grand.args[0], ast.Constant) \
                and grand.args[0].value not in RUNNER_FIXTURES and grand.args[0].value not in RESTRICTED
        return how == "call" and called

    def call(self, n, rec):
        for k in n.keywords:
            if k.arg == "autouse" and not (isinstance(k.value, ast.Constant) and k.value.value is False):
                self.add("autouse-fixture", k.value.lineno, "autouse fixtures run for tests that did not ask for them")
        for k in n.keywords:
            if k.arg == "pass_fds" or k.arg == "close_fds" and not (isinstance(k.value, ast.Constant) and k.value.value is True):
                self.add(C, k.value.lineno, "%s= hands the runner's file descriptors to a child process" % k.arg)
            if k.arg == "style" and not (isinstance(k.value, ast.Constant) and k.value.value in ("%", "$")):
                given = n.args[:1] + [x.value for x in n.keywords if x.arg in ("fmt", "format")]
                if given and built(given[0]):
                    self.add(F, n.lineno, 'a "{" style format built at run time, whose fields may walk any attribute')
        if isinstance(n.func, ast.Attribute) and n.func.attr in FORMAT_METHODS:
            receiver = n.func.value
            fmt = n.args[0] if n.args and (n.func.attr == "vformat" or chain(receiver) == ["str"] or isinstance(receiver, ast.Call)
                                           and (chain(receiver.func) or [""])[-1] == "Formatter") else receiver
            if built(fmt):
                self.add(F, n.lineno, "%s() of a format string built at run time, whose fields may walk any attribute; "
                         "write the format string out" % n.func.attr)
        if isinstance(n.func, ast.Attribute) and n.func.attr in ("get_field", "get_value") and len(n.args) == 3:
            name = n.args[0]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and not field_danger("{%s}" % name.value)):
                self.add(F, n.lineno, "%s() of the field %s %s" % (n.func.attr, snippet(name), WHY[F]))
        parts = chain(n.func)
        if parts:
            if rec and parts[-1].startswith("assert"):
                rec[2] = True
            self.defer(self.called, n, parts)
        elif isinstance(n.func, ast.Attribute) and n.func.attr in DUNDER_GETATTRS and n.args:  # super().__getattribute__(name)
            self.dunder_getattr(n.func.attr, None, n.args, n.lineno)

    # Queued checks, run once every binding of the reply is known.

    def name(self, name, line):
        if name in NAMES and name not in self.imports:
            self.add(NAMES[name], line, '"%s" %s' % (name, WHY[NAMES[name]]))

    def dotted(self, parts, line):
        self.name(parts[0], line)
        shown = ".".join(parts)
        for meaning in sorted(self.possible(parts)):
            if self.banned(meaning, line, shown):
                break
        if "__dict__" in parts[1:] and parts[0] in self.modules:
            self.add("dynamic-module-access", line, '"%s" reaches a module through its __dict__' % shown)

    def raised(self, parts, line):
        if self.possible(parts) & {"SystemExit", "builtins.SystemExit"}:
            self.add(X, line, "raise SystemExit %s" % WHY[X])

    def environ_key(self, parts, key, line):
        """os.environ[...] and os.getenv(...) of a computed name with PYTEST_CURRENT_TEST's parts in it."""
        if any(m.split(".")[-1] in ("environ", "environb") or m in ENVIRON_GETS for m in self.possible(parts)):
            text = "".join(fragments(key)).upper()
            if "PYTEST" in text or "CURRENT" in text:
                self.add(C, line, "an environment variable read by a computed name %s %s" % (snippet(key), WHY[C]))

    def as_value(self, parts, line):
        means = self.possible(parts) & CALL_ONLY
        if means:
            self.add(I, line, '"%s" (%s) used as a value, not called by name, hides what it reaches; call it directly'
                     % (".".join(parts), sorted(means)[0]))

    def attribute_by_name(self, fn, target, name, line):
        """getattr and its kin: a literal name is checked like target.name; a computed one by its literal parts."""
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            if name.value in ATTRS:
                self.add(I, line, 'attribute "%s" %s' % (name.value, WHY[I]))
            if self.tests and name.value in RUNNER_ATTRS:
                self.add("runner-object", line, 'attribute "%s" leads to pytest\'s own objects' % name.value)
            if target:
                self.dotted(target + [name.value], line)
            return
        bad = dangerous(name)
        if bad is not None:
            self.add(I, line, '%s with a computed name built from "%s" %s' % (fn, bad, WHY[I]))
        elif target and target[0] in self.modules:
            self.add("dynamic-module-access", line, '%s reaches into module "%s" by a computed name' % (fn, ".".join(target)))

    def dunder_getattr(self, fn, receiver, args, line):
        """object.__getattribute__(x, name) and x.__getattribute__(name), told apart by how many arguments they take."""
        unbound = len(args) >= (3 if fn == "__setattr__" else 2)
        self.attribute_by_name(fn, chain(args[0]) if unbound else receiver, args[1] if unbound else args[0], line)

    def getter(self, fn, names, line):
        """operator.attrgetter and methodcaller: only literal names, none near the interpreter's internals."""
        for a in names:
            literal = isinstance(a, ast.Constant) and isinstance(a.value, str)
            bad = None if not literal else next((p for p in a.value.split(".") if NAMED_DANGER.search(p) or p in ATTRS), None)
            if not literal or bad is not None:
                said = "a computed name %s" % snippet(a) if not literal else '"%s"' % a.value
                self.add(I, line, '%s of %s %s' % (fn, said, WHY[I]))

    def called(self, n, parts):
        means, args, line = self.possible(parts), n.args, n.lineno
        if means & GETATTRS and len(args) >= 2:
            self.attribute_by_name(parts[-1], chain(args[0]), args[1], line)
        elif parts[-1] in DUNDER_GETATTRS and args:
            self.dunder_getattr(parts[-1], parts[:-1] or None, args, line)
        if "operator.attrgetter" in means:
            self.getter("attrgetter", args + [k.value for k in n.keywords], line)
        if "operator.methodcaller" in means:
            self.getter("methodcaller", args[:1], line)
        if "vars" in means:
            if not args:
                self.add(I, line, '"vars()" without an argument %s' % WHY[I])
            elif (chain(args[0]) or [""])[0] in self.modules:
                self.add("dynamic-module-access", line, '"vars(%s)" reaches a module through its namespace' % snippet(args[0]))
        if means & {"SystemExit", "builtins.SystemExit"}:
            self.add(X, line, "SystemExit %s" % WHY[X])
        if means & OPENERS:
            first = (args[:1] + [k.value for k in n.keywords if k.arg == "file"] + [None])[0]
            if first is not None and numeric(first) or any(k.arg in ("closefd", "opener") for k in n.keywords):
                self.add(C, line, '"%s" opens a file descriptor by number, which may be one of the runner\'s' % snippet(n))
        if means & ENVIRON_GETS and args:
            self.environ_key(parts, args[0], line)
        if "logging.StrFormatStyle" in means and args and built(args[0]):
            self.add(F, line, 'a "{" style format built at run time, whose fields may walk any attribute')
        if means & CONDITIONAL:
            conditions = args + [k.value for k in n.keywords if k.arg == "condition"]
            if not all(boolean(c) for c in conditions):
                self.add("string-condition", line, "the condition of %s may be a string, which pytest evaluates as code; "
                         "write a comparison, not ... or True/False" % parts[-1])

    def decorator(self, d, props):
        call = d if isinstance(d, ast.Call) else None
        parts = chain(call.func if call else d)
        shown = ".".join(parts) if parts else snippet(d)
        own = parts and len(parts) == 2 and parts[1] in props.get(parts[0], ())
        known = self.known(parts)
        # The package's own registration function (@register) registers what it decorates, as the call form does.
        if not own and not self.registrar(parts) and \
                not (known in DECORATORS or known and self.tests and (known == "pytest.fixture" or known.startswith("pytest.mark."))):
            why = " (it is defined in the reply)" if parts and parts[0] in self.local else ""
            return self.add("decorator-not-allowed", d.lineno, 'decorator "%s" is not allowed%s' % (shown, why))
        if call and not (all(value(e, True, self.data_call) for e in call.args) and
                         all(k.arg is not None and value(k.value, True, self.data_call) for k in call.keywords)):
            self.add("decorator-arguments", d.lineno, 'the arguments of decorator "%s" must be data, not code' % shown)

    def data_call(self, n):
        known = self.known(chain(n.func))
        return bool(known) and (known in VALUES or known == "pytest.param" or known.startswith("pytest.mark.")) and \
            all(value(e, True, self.data_call) for e in n.args) and \
            all(k.arg is not None and value(k.value, True, self.data_call) for k in n.keywords)

    def class_call(self, n):
        return self.known(chain(n.func)) in CLASS_CALLS and all(value(e, False) for e in n.args) and \
            all(k.arg is not None and value(k.value, False) for k in n.keywords)

    def metaclass(self, name, v):
        if self.known(chain(v)) not in METACLASSES:
            self.add("class-header", v.lineno, 'the metaclass %s of "%s" is not allowed' % (snippet(v), name))

    def body(self, body, rule, module):
        for s in body:
            t = type(s)
            if t in DEFS or t in (ast.ClassDef, ast.Pass) or module and t in (ast.Import, ast.ImportFrom):
                continue
            if t is ast.Expr and isinstance(s.value, ast.Constant):
                continue
            if module and self.part == "support" and t is ast.Expr and self.registration(s.value):
                continue
            if t is ast.AnnAssign and module and any(
                    isinstance(x, ast.Subscript) and any(isinstance(y, ast.Name) and y.id in self.code_names for y in ast.walk(x.value))
                    for x in ast.walk(s.annotation)):
                self.add("annotation-not-type", s.lineno, "the annotation %s subscripts a class of the reply's, at import" % snippet(s.annotation))
                continue
            if t is ast.AnnAssign and not typ(s.annotation):
                self.add("annotation-not-type", s.lineno, "the annotation %s runs code" % snippet(s.annotation))
                continue
            if t is ast.Assign and all(names_only(x) for x in s.targets) and self.assigned(s.value, module):
                continue
            if t is ast.AnnAssign and isinstance(s.target, ast.Name) and (s.value is None or self.assigned(s.value, module)):
                continue
            where = "at module level" if module else "in a class body"
            self.add(rule, s.lineno, '"%s" would run at import %s; only defs, classes and assignments of literals may stand there'
                     % (snippet(s), where))

    def assigned(self, v, module):
        """What a module or class may assign at import: data, and at module level also a type alias
        (Callable[[str], str | None]), operators on data (frozenset(ascii_lowercase) - VOWELS) and
        comprehensions over data ({v: k for k, v in TABLE.items()}): nothing there calls code of the reply's."""
        if value(v, False, self.class_call):
            return True
        # Operators, subscripts and iteration call dunder methods: never on a class or function of the reply's own,
        # whose __add__, __class_getitem__ or __iter__ would run at import.
        bound = {t.id for g in getattr(v, "generators", ()) for t in ast.walk(g.target) if isinstance(t, ast.Name)}
        if any(isinstance(n, ast.Name) and n.id in self.code_names - bound for n in ast.walk(v)):
            return False
        return module and not self.tests and (typ(v) or value(v, True, self.class_call) or self.comprehension(v))

    def comprehension(self, n):
        if type(n) not in (ast.ListComp, ast.SetComp, ast.DictComp):
            return False
        parts = [n.key, n.value] if isinstance(n, ast.DictComp) else [n.elt]
        for g in n.generators:
            if g.is_async or not names_only(g.target) or not (value(g.iter, False) or self.view(g.iter)):
                return False
            parts += g.ifs
        return all(value(e, True, self.class_call) for e in parts)

    def view(self, n):
        """TABLE.items(), .keys(), .values(): a dict's own view of data, no code of the reply's."""
        owner = chain(n.func.value) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) else None
        return owner is not None and not n.args and not n.keywords and n.func.attr in ("items", "keys", "values") \
            and owner[0] not in self.code_names

    def registrar(self, parts):
        """A bare name that is one of the package's own functions the reply may register with."""
        if not parts or len(parts) != 1 or parts[0] not in self.registrars or parts[0] in self.local:
            return False
        return self.imports.get(parts[0], {self.registrars[parts[0]]}) == {self.registrars[parts[0]]}

    def registration(self, n):
        """register(_rule, "name", re.compile(...)): a call of the package's own function on data and names."""
        # Bound by the reply itself, or imported from anywhere but its own module, the name is not the package's function.
        return isinstance(n, ast.Call) and self.registrar(chain(n.func)) \
            and all(value(e, False, self.class_call) for e in n.args) \
            and all(k.arg is not None and value(k.value, False, self.class_call) for k in n.keywords)

    def finish(self):
        for part, fn, args in self.later:
            self.part = part
            fn(*args)
        self.part = "code"
        for name, line, ok, refs in self.records:
            if not ok and not any(self.known(r) in ASSERTING for r in refs):
                self.add("tests-must-test", line, 'test "%s" has no assert and no pytest.raises, approx or warns' % name)


def review(request):
    tests = request["kind"] == "tests"
    trees, out = [], []
    for part, source in request["parts"]:
        try:
            trees.append((part, ast.parse(source)))
        except SyntaxError as e:
            out.append(("syntax-error", e.lineno or 0, "does not parse: %s" % e.msg, part))
        except ValueError as e:
            out.append(("syntax-error", 0, "does not parse: %s" % e, part))
    if out:
        return out
    r = Review(tests, request.get("registrars", ()))
    for part, tree in trees:
        r.walk(part, tree)
    r.finish()
    return r.out


def review_reply(request):
    try:
        found = review(request)
    except (RecursionError, MemoryError):
        found = [("unreviewable", 0, "the reply is nested too deeply to review", "code")]
    except Exception as e:
        found = [("unreviewable", 0, "the review failed: %s: %s" % (type(e).__name__, e), "code")]
    order = {p: i for i, (p, _) in enumerate(request["parts"])}
    found = sorted(set(found), key=lambda f: (order.get(f[3], 0), f[1], f[0], f[2]))
    return {"findings": found[:100], "total": len(found)}
`;

export const REVIEW_SCRIPT = `${REVIEW_PY}
print(json.dumps(review_reply(json.loads(sys.stdin.buffer.read()))))
`;
