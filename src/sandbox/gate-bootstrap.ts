import { REPORT_FD, SECRET_FD } from "./process-group.js";
import { REPORT_KEY_BYTES } from "./signed-report.js";

/** The most of pytest's JUnit report the signed report carries. */
export const MAX_JUNIT_BYTES = 16 * 1024 * 1024;
/** The signed report carries the JUnit report as escaped JSON (up to six bytes a byte), the outcomes and the signature. */
export const MAX_SIGNED_REPORT_BYTES = 6 * MAX_JUNIT_BYTES + 4 * 1024 * 1024;

/** The exit status of a run the guard ended: generated code reached for the interpreter's internals. */
export const GUARD_EXIT = 86;

export interface BootstrapSettings {
  /** The timeout plugin's source, loaded as a module of its own from this text (nothing on disk to rewrite). */
  timeoutPluginSource: string;
  /** Where pytest's own --junitxml report goes; read back and signed at the end of the session. */
  junitPath: string;
  /** (resource name, value) pairs set with setrlimit before anything else. */
  limits: [string, number][];
  /** Arguments for pytest.main. */
  pytestArgs: string[];
  /**
   * When given, coverage.py measures this file (absolute, real path) with branch coverage from before pytest
   * starts, and the signed report carries its analysis (see coverageOf below). A measure, never part of a verdict.
   */
  coverFile?: string;
  /**
   * When given, the node's tests run once for each mutant of this file (absolute, real path) in one interpreter, each
   * source served by an import hook in place of the file's bytes (the file itself is never written), and the signed
   * report carries each run's record in `variants`. The sources arrive on SECRET_FD after the key. A measure (decision
   * 0022), never part of a verdict.
   */
  mutantsOf?: string;
}

/**
 * The program the gate's interpreter runs (`python -s -c <it>`, PYTHONSAFEPATH set).
 * It is passed on the command line, never written to disk, so a process left behind by
 * an earlier gate (in process mode) has no file to rewrite. Before any generated code can
 * run, it:
 * 1. sets the resource limits (hard and soft, so they cannot be raised again);
 * 2. reads the run's key from SECRET_FD and closes it; the key and the record of outcomes
 *    then live only in the frame of a suspended generator, and nothing of the gate is a
 *    global of `__main__`;
 * 3. installs the guard (guard_for), an audit hook (PEP 578) that ends the interpreter
 *    with GUARD_EXIT: whenever anything reads the frame of the gate's own generators;
 *    with code of the package on the stack, when it reaches the garbage collector's
 *    object lists, ctypes, tracing, new code objects or the process's memory, compiles
 *    or runs code other than through the import system, namedtuple, dataclasses or a
 *    parser, or reaches for frames other than through library functions that hand none
 *    back. An audit hook cannot be removed. On a coverage run, coverage.py's own code may
 *    start its tracer under the package's frames (a thread's first frame), since that run
 *    is a measure, never a verdict;
 * 4. replaces signal.signal (a handler is handed a frame) by one that checks the stack;
 * 5. loads the timeout plugin from its source and runs pytest; when a file is to be measured
 *    (BootstrapSettings.coverFile), coverage.py is started first, still before any generated code runs.
 * Its verdict plugin records every test's outcome itself, from the reports pytest hands
 * every plugin, and at the very end of the session writes them with the exit status and
 * pytest's JUnit report to REPORT_FD, signed with HMAC-SHA256. The record believes a pass
 * only while pytest's machinery is the one the collection started with (runner_checks). Code that exits early,
 * kills the interpreter, or writes its own report leaves no valid signature; code that
 * overwrites the JUnit file changes nothing, since the copy that counts is the one read
 * after pytest wrote it.
 */
const SOURCE = String.raw`
def memory_paths(os):
    """
    What tells whether a path leads to the process's memory (/proc/self/mem and the rest of a process's folder in
    /proc), however it is spelled: bytes, a link, a relative name read from a directory descriptor the event does not
    show. Bubblewrap shows the tests no /proc at all; this is what process mode has.
    """
    import pathlib

    type_of, text, fsdecode, realpath = type, str, os.fsdecode, os.path.realpath
    plain_paths = (pathlib.PosixPath, pathlib.PurePosixPath)
    process_files = {"mem", "maps", "smaps", "pagemap", "environ"}

    def reaches_memory(path):
        kind = type_of(path)
        if kind is int:
            return False
        if kind is bytes:
            path = fsdecode(path)
        elif kind in plain_paths:
            path = text(path)
        elif kind is not text:
            # An object of its own: what it answered when the file was opened need not be what it answers now.
            return True
        # A relative name may be read from a directory descriptor the event does not show (os.open("mem", dir_fd=...)).
        if not path.startswith("/") and path.rstrip("/").rpartition("/")[2] in process_files:
            return True
        parts = realpath(path).split("/")
        return len(parts) > 2 and parts[1] == "proc" and (parts[2].isdigit() or parts[2] in ("self", "thread-self"))

    return reaches_memory


def guard_for(root, protected, getframe, end_run, sysconfig, os, tracer, spawned, reaches_memory):
    """The guard: an audit hook (PEP 578), built here so that nothing outside it holds its state."""
    # Built-ins bound now: code of the package could rebind builtins.id (or any, len, isinstance) before the guard next
    # runs, and the guard would no longer know the record's frame when a thread with no code of the package asks for it.
    id_of, size, any_of = id, len, any
    library = tuple(os.path.realpath(sysconfig.get_paths()[k]) + "/" for k in ("stdlib", "platstdlib"))
    runner = ("/_pytest/", "/pytest/", "/pluggy/", "/py/", "/iniconfig/")
    # Refused with code of the package anywhere on the stack, whoever raises them.
    hard = ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "code.__new__", "sys.settrace", "sys.setprofile")
    # Refused unless what raised them is one of these: building classes, parsing (ast, typing's forward
    # references, traceback's carets), and the import system.
    compiling = ("compile", "exec")
    raisers = {
        "compile": {"collections/__init__.py", "dataclasses.py", "ast.py", "typing.py"},
        "exec": {"collections/__init__.py", "dataclasses.py"},
    }
    # Refused unless the package reached them through a library function that hands no frame back.
    soft = ("sys._getframe", "sys._current_frames")
    frame_attributes = {"tb_frame", "gi_frame", "cr_frame", "ag_frame"}
    safe_entries = {
        ("logging/__init__.py", name) for name in ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log")
    } | {
        ("warnings.py", "*"), ("enum.py", "*"), ("typing.py", "*"), ("collections/__init__.py", "namedtuple"), ("dataclasses.py", "*"),
        ("abc.py", "*"), ("traceback.py", "format_exc"), ("traceback.py", "format_exception"), ("traceback.py", "print_exc"),
        ("traceback.py", "print_exception"), ("traceback.py", "format_tb"), ("traceback.py", "extract_tb"),
    }
    busy = [False]
    # On a mutants' run (spawned is a list then): whether a session's tests started a process, which would import the
    # module from disk and never the mutant (decision 0022).
    starts = {"subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn", "os.system", "os.fork", "os.forkpty", "pty.spawn"}

    def kind_of(event, args):
        if event in hard or event.startswith("ctypes."):
            return "hard"
        if event == "object.__setattr__":
            return "hard" if args[1] in ("__code__", "f_trace") else None
        if event in ("open", "os.chdir", "os.symlink"):
            # Looked at only with code of the package on the stack: every import opens files.
            return "path"
        if event in compiling:
            return event
        if event in soft or event == "object.__getattr__" and args[1] in frame_attributes:
            return "soft"
        return None

    def in_library(filename):
        for base in library:
            if filename.startswith(base):
                return filename[size(base):]
        return None

    def safe_entry(frame):
        code = frame.f_code
        filename = code.co_filename
        if filename.startswith("<frozen importlib"):
            return True
        rel = in_library(filename)
        if rel is not None:
            return (rel, "*") in safe_entries or (rel, code.co_name) in safe_entries
        # Third-party libraries the package depends on (site-packages), but never the test runner's own.
        return "site-packages" in filename and not any_of(part in filename for part in runner)

    def refused(kind, raiser):
        callee = None
        frame = raiser
        while frame is not None:
            if frame.f_code.co_filename.startswith(root):
                if kind == "hard" or callee is None:
                    return frame
                if kind in compiling:
                    name = raiser.f_code.co_filename
                    return None if name.startswith("<frozen importlib") or in_library(name) in raisers[kind] else frame
                return None if safe_entry(callee) else frame
            callee = frame
            frame = frame.f_back
        return None

    def guard(event, args):
        if busy[0]:
            return
        if event == "object.__getattr__" and id_of(args[0]) in protected:
            end_run("something reached for the frame of rpg-forge's own record (%s)" % args[1])
        # Every audit hook is handed what raised an event: sys._getframe's is the frame that asked, the record's own
        # when it checks its stack. No library the gate runs adds one.
        if event == "sys.addaudithook":
            end_run("something added an audit hook, which would be handed the frames of rpg-forge's own record")
        if spawned is not None and event in starts:
            spawned[0] = True
        kind = kind_of(event, args)
        if kind is None:
            return
        busy[0] = True
        try:
            raiser = getframe(1)
            # On a coverage run only (tracer is coverage.py's folder, else empty): its tracer starting in a new thread,
            # whose first frame may be the package's own Thread.run.
            if event == "sys.settrace" and raiser.f_code.co_filename.startswith(tracer):
                return
            culprit = refused("hard" if kind == "path" else kind, raiser)
            if culprit is not None and (kind != "path" or reaches_memory(args[0])):
                how = event if event.startswith(("sys.", "gc.", "ctypes", "code.", "open", "compile", "exec", "os.")) else "%s %s" % (event, args[1])
                end_run("%s:%d reached for the interpreter's internals (%s)" % (culprit.f_code.co_filename[len(root):], culprit.f_lineno, how))
        finally:
            busy[0] = False

    return guard


def runner_checks(sys):
    """
    What the record checks before it believes a pass: that pytest's machinery (its modules, pluggy's, their classes,
    the plugin manager's hooks) is the one the session's collection started with, and that a test runs the function
    pytest collected for it. Generated code that reaches pytest's objects could otherwise register a plugin whose
    pytest_pyfunc_call runs no test, replace pytest.raises, or give the next item another function. Built before any
    code of the package runs, with the built-ins it calls bound then; held only by the record's frame.
    """
    import itertools, operator

    # Compared by identity, never by ==, which a replacement could answer; and never through id(), which raises an audit
    # event each call (every one a call of the guard).
    same, values_of, flattened = operator.is_, operator.methodcaller("values"), itertools.chain.from_iterable
    numbered = enumerate
    is_a, attribute, has, namespace, type_of, text = isinstance, getattr, hasattr, vars, type, str
    listed, mapped, zipped, every, size = tuple, map, zip, all, len
    code_type, function_type = type_of(runner_checks.__code__), type_of(runner_checks)
    method_type = type_of(runner_checks.__get__(0))
    id_of, join = id, "".join
    # Names pytest itself rebinds while tests run: assertion rewriting's hooks, and a class's once-only warning flag.
    absent = object()
    rebound = {"_config", "_reprcompare", "_assertion_pass", "_pytest_diamond_inheritance_warning_shown"}

    def is_runner(name):
        return name in ("pytest", "_pytest", "pluggy", "unittest") or name.startswith(("_pytest.", "pluggy.", "unittest."))

    def spaces_of():
        spaces = []
        for name, module in listed(sys.modules.items()):
            if module is None or not is_runner(name):
                continue
            names = namespace(module)
            spaces.append((name, names))
            for value in listed(names.values()):
                if is_a(value, type_of) and attribute(value, "__module__", None) == name:
                    spaces.append((name + "." + value.__name__, namespace(value)))
        return spaces

    def identical(these, those):
        return size(these) == size(those) and every(mapped(same, these, those))

    def contents(space):
        # The values alone: a name rebound, added or removed shows in them; a name swapped for another with the same value
        # changes nothing pytest does.
        return listed(space.values())

    def hooks_of(config, callers):
        manager = config.pluginmanager
        state = [manager, manager.hook, config.hook, attribute(manager, "_inner_hookexec", None)]
        state.extend(listed(namespace(manager.hook).values()))
        for caller, implementations in callers:
            state.append(attribute(caller, "_hookexec", None))
            for hook in implementations(caller):
                state.extend((hook, hook.function, hook.argnames, hook.kwargnames, hook.hookwrapper, attribute(hook, "wrapper", None)))
        return state

    def state_at_start(config, cells):
        # Each hook caller's implementations listed by its class's own method as it is now, whatever is done to the class later.
        callers = [(caller, type_of(caller).get_hookimpls) for caller in listed(namespace(config.pluginmanager.hook).values())]
        spaces = spaces_of()
        # The last place is for settle's quick look.
        state = [config, callers, hooks_of(config, callers), spaces, [(listed(space), contents(space)) for _, space in spaces], None]
        return state + [cells, listed(cell.cell_contents for cell in cells)]

    def settle(start):
        """
        Once the collection is done, the items made and the flags pytest sets on their classes set: every value of the
        namespaces pytest never writes to in one tuple, to look at in one pass (C's, not Python's: a look costs a fraction
        of a millisecond where one namespace at a time cost 1.6). Only when nothing but what pytest rebinds has changed.
        """
        if start is None or changed_since(start) is not None:
            return
        spaces = start[3]
        volatile = [index for index, (_, space) in numbered(spaces) if not rebound.isdisjoint(listed(space))]
        steady = [space for index, (_, space) in numbered(spaces) if index not in volatile]
        start[5] = (steady, volatile, listed(flattened(mapped(values_of, steady))))

    def only_rebound(space, names, values):
        """Whether what changed in a namespace is only names pytest rebinds itself."""
        before = {key: value for key, value in zipped(names, values)}
        now = {}
        for key, value in listed(space.items()):
            if type_of(key) is not text:
                return False
            now[key] = value
        return every(key in rebound or same(before.get(key, absent), now.get(key, absent)) for key in listed(before) + listed(now))

    def changed_since(start, hooks_only=False):
        """What of pytest's machinery changed since the collection started, if anything did."""
        if start is None:
            return "the record of how the session started"
        config, callers, hooks, spaces, then, quick, cells, cells_then = start
        if not identical(listed(cell.cell_contents for cell in cells), cells_then):
            return "rpg-forge's own plugin"
        if not identical(hooks_of(config, callers), hooks):
            return "pytest's hooks"
        if hooks_only:
            return None
        pairs = zipped(spaces, then)
        if quick is not None:
            steady, volatile, values_then = quick
            if identical(listed(flattened(mapped(values_of, steady))), values_then):
                # Left to look at one by one: only the namespaces pytest writes to itself.
                pairs = [(spaces[index], then[index]) for index in volatile]
        for (name, space), (names, values) in pairs:
            if not identical(contents(space), values) and not only_rebound(space, names, values):
                return name
        return None

    def function_of(item):
        """What the item's test function is made of (its code, globals, defaults and closure); None for anything else."""
        function = attribute(item, "obj", None)
        if type_of(function) is method_type:
            function = function.__func__
        if type_of(function) is not function_type:
            return None
        return listed(attribute(function, name, None) for name in ("__code__", "__globals__", "__defaults__", "__kwdefaults__", "__closure__"))

    def collected(session):
        """
        The items the collection made, each with its test id (a plain string) and its function, which must be the test
        file's own under the test's name; taken when the collection finishes, before any test runs.
        """
        items = {}
        for item in listed(session.items):
            parts = function_of(item)
            code = parts[0] if parts is not None else None
            own = type_of(code) is code_type and code.co_name == item.originalname and code.co_filename == text(item.path)
            items[id_of(item)] = (item, join((item.nodeid,)), parts if own else None, type_of(item))
        return items

    def test_of(items, item):
        """The collected test id of an item that runs the function collected for it, the way pytest runs tests; else None."""
        entry = items.get(id_of(item)) if items is not None else None
        if entry is None or not same(entry[0], item) or not same(type_of(item), entry[3]) or entry[2] is None:
            return None
        parts = function_of(item)
        if parts is None or not identical(parts, entry[2]):
            return None
        runs_with = attribute(type_of(item).runtest, "__code__", None)
        if runs_with is None or "/_pytest/" not in runs_with.co_filename:
            return None
        # Nothing of the item's class (runtest, repr_failure, a unittest result's addFailure) stands in for its own.
        for name in listed(namespace(item)):
            if is_a(attribute(type_of(item), name, None), function_type):
                return None
        return entry[1]

    def outcome_of(report):
        """
        A report's phase and the test's outcome from it (None for a setup or teardown that passed), read once each as
        plain strings: an attribute the package rewrote to an object of its own could answer each comparison its own way.
        """
        when, outcome = report.when, report.outcome
        if type_of(when) is not text or type_of(outcome) is not text:
            return "call", "error"
        if has(report, "wasxfail") or outcome == "skipped":
            return when, "skipped"
        if outcome != "passed":
            return when, "failed" if when == "call" else "error"
        return when, "passed" if when == "call" else None

    def plain(nodeid):
        """A test id as a plain string: a subclass could hash and compare as it likes, and be encoded as another id."""
        return join((nodeid,))

    return state_at_start, settle, changed_since, collected, test_of, outcome_of, plain


def coverage_of(path):
    """Starts coverage.py on one file; returns what stops it and reads the arcs it recorded (decision 0023)."""
    import coverage

    # No data file (nothing on disk for the package to write first or replace), and none of the package's
    # configuration files (.coveragerc, setup.cfg, pyproject.toml: plugins, other files, other data files).
    measure = coverage.Coverage(data_file=None, branch=True, include=[path], config_file=False)
    measure.start()

    def finish():
        try:
            measure.stop()
            arcs = measure.get_data().arcs(path) or []
            return {"arcs": sorted(set((a, b) for a, b in arcs if type(a) is int and type(b) is int))}
        except Exception as error:
            return {"error": "%s: %s" % (type(error).__name__, error)}

    return finish


def _gate(limits, junit_path, timeout_source, args, cover_file, mutants_of):
    import posix, resource, sys, sysconfig

    for name, value in limits:
        which = getattr(resource, name)
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    import _thread, operator, os

    getframe, get_ident = sys._getframe, _thread.get_ident
    main_thread = get_ident()
    # Bound here, before any code of the package runs: what the record and the report call is never looked up on a
    # module the tests can change (posix.close, json.encoder's functions, a built-in) once they run.
    write, exit_now, close, open_file, read = posix.write, posix._exit, posix.close, posix.open, posix.read
    read_only = posix.O_RDONLY | posix.O_NOFOLLOW
    size, leave = len, SystemExit
    # stderr as it is before pytest captures it, for the guard's last word.
    stderr = posix.dup(2)
    posix.set_inheritable(stderr, False)

    def end_run(why):
        write(stderr, ("\nrpg-forge: %s; the run was ended\n" % why).encode())
        exit_now(${GUARD_EXIT})

    def believe(changed):
        if changed is not None:
            end_run("%s changed while the tests ran" % changed)

    def read_secret_input():
        data = b""
        while True:
            chunk = read(${SECRET_FD}, 1 << 16)
            if not chunk:
                break
            data += chunk
        close(${SECRET_FD})
        return data

    # The record and the key live in the frame of a suspended generator; the guard refuses that frame to
    # everyone. Every entry into it looks at the stack (the tripwire: with code of the package on it, the
    # guard ends the run) and must come from the main thread, where pytest calls its hooks. The verdict
    # plugin hands it pytest's objects as they are and the record reads them itself, with built-ins bound
    # before any code of the package ran: the plugin's closure cells can be rewritten, its frame cannot.
    def recorder(key, digest, encode, runs, spawned, checks):
        integer, some, same, type_of = int, any, operator.is_, type
        state_at_start, settle, changed_since, collected, test_of, outcome_of, plain = checks
        tests, collect_errors, variants = {}, [], []
        start = items = ran = returned = own = None
        unittest_failed = False
        while True:
            kind, value = yield
            getframe()
            if get_ident() != main_thread:
                end_run("the verdict's record was fed from another thread")
            if kind == "collect":
                nodeid = plain(value.nodeid)
                # Once each: pytest 7 collects a file again for every test id of it it was given.
                if value.failed and nodeid not in collect_errors:
                    collect_errors.append(nodeid)
            elif kind == "own":
                # Before any code of the package ran: the gate's own closure cells, and pytest's unittest item class.
                own = value
            elif kind == "start":
                start = state_at_start(value.config, own[0])
            elif kind == "collected":
                items = collected(value)
                settle(start)
            elif kind == "returned":
                returned = value
            elif kind == "unittest failed":
                unittest_failed = True
            elif kind in ("calling", "ran"):
                # pytest's machinery is checked on both sides of the call, where the package's code runs: what it changes
                # before a test's call (a finalizer it queued) or during it shows at one of them.
                believe(changed_since(start))
                item = value
                # An item the collection did not make, or one whose function or way of running was swapped, passed nothing.
                nodeid = test_of(items, item)
                if nodeid is None:
                    tests[plain(item.nodeid)] = "error"
                ran = None
                if kind == "calling":
                    returned, unittest_failed = None, False
                elif nodeid is not None:
                    # A pass counts only for the collected test whose function this plugin saw return, right around the
                    # call (a unittest test: none of its failures handed to pytest): a runner that skips this plugin, a
                    # wrapper that swallows the exception, or a report rewritten after the fact passed nothing.
                    if same(type_of(item), own[1]):
                        ran = (nodeid, not unittest_failed)
                    else:
                        ran = (nodeid, returned is not None and same(returned[0], item) and returned[1] is True)
            elif kind == "report":
                when, outcome = outcome_of(value)
                if outcome is None:
                    continue
                nodeid = plain(value.nodeid)
                if when == "call":
                    if ran is not None:
                        nodeid = ran[0]
                    if outcome == "passed":
                        believe(changed_since(start, hooks_only=True))
                        if ran is None or not ran[1]:
                            outcome = "error"
                    ran = None
                if outcome != "passed" or nodeid not in tests:
                    tests[nodeid] = outcome
            elif kind == "finish":
                believe(changed_since(start))
                status, measured = integer(value[0]), value[1]
                # A session with a test failed or errored never signs a success: pytest's own count can be rewritten.
                if status == 0 and some(outcome in ("failed", "error") for outcome in tests.values()):
                    status = 1
                if runs is None:
                    document = {"exitstatus": status, "tests": tests, "collect_errors": collect_errors, "junit": read_junit(junit_path)}
                    if measured is not None:
                        document["coverage"] = measured
                else:
                    # One mutant's run of several in this interpreter: kept, and the next one starts with a clean record.
                    variants.append({"exitstatus": status, "tests": tests, "collect_errors": collect_errors, "spawned": spawned[0]})
                    tests, collect_errors = {}, []
                    runs -= 1
                    if runs > 0:
                        continue
                    document = {"exitstatus": 0, "tests": {}, "collect_errors": [], "junit": None, "variants": variants}
                payload = encode(document).encode("ascii")
                data = digest(key, payload, "sha256").hex().encode("ascii") + b"\n" + payload
                while data:
                    data = data[write(${REPORT_FD}, data):]
                close(${REPORT_FD})
                return

    # A signal handler is handed the frame it interrupted, and installing one raises no audit event:
    # installing one goes through a generator too (the original function out of reach in its frame).
    import _hashlib, _json, _signal, json, signal, types

    def installer(install):
        result = None
        while True:
            signalnum, handler = yield result
            getframe()
            result = install(signalnum, handler)

    secret = read_secret_input()
    # After the key, the mutants' sources when there are any: text, not secret, but out of argv's limits.
    mutants = json.loads(secret[${REPORT_KEY_BYTES}:].decode("utf-8")) if mutants_of is not None else []
    # How many runs the record waits for, on a mutants' run; None on a gate's or a coverage run (one run, one document).
    runs = len(mutants) if mutants_of is not None else None
    def not_json(value):
        raise TypeError("the record holds a %s" % type(value).__name__)

    # json's C encoder, made now: JSONEncoder.encode would look up json.encoder's functions at the signing, where a
    # test that replaced them could rewrite the document before it is signed. str.join belongs to a built-in type.
    c_encode = _json.make_encoder(None, not_json, _json.encode_basestring_ascii, None, ":", ",", False, False, True)
    join = "".join

    def encode(document):
        return join(c_encode(document, 0))

    # On a mutants' run: whether the current session's tests started a process, set by the guard, read by the record.
    spawned = [False] if mutants_of is not None else None
    record = recorder(secret[:${REPORT_KEY_BYTES}], _hashlib.hmac_digest, encode, runs, spawned, runner_checks(sys))
    del secret
    next(record)
    installing = installer(_signal.signal)
    next(installing)
    tracer = ()
    if cover_file is not None:
        import coverage

        tracer = tuple(set(folder + "/" for folder in (os.path.dirname(coverage.__file__), os.path.realpath(os.path.dirname(coverage.__file__)))))
    # Bound to no name here: the guard's state is out of reach of anyone who finds this frame.
    sys.addaudithook(guard_for(os.path.realpath(posix.getcwd()) + "/", {id(record), id(installing)}, getframe, end_run, sysconfig, os, tracer, spawned, memory_paths(os)))

    def guarded_signal(signalnum, handler):
        return installing.send((signalnum, handler))

    _signal.signal = signal.signal = guarded_signal
    # Processes the tests start must not inherit the report's pipe.
    posix.set_inheritable(${REPORT_FD}, False)

    def read_junit(path):
        try:
            fd = open_file(path, read_only)
        except OSError:
            return None
        data = b""
        try:
            while size(data) < ${MAX_JUNIT_BYTES}:
                chunk = read(fd, 1 << 20)
                if not chunk:
                    break
                data += chunk
        finally:
            close(fd)
        return data.decode("utf-8", "replace")

    # Started here, after the guard and before pytest imports anything of the package. Its tracer is coverage.py's
    # own (C) code; the guard still refuses sys.settrace to the package.
    finish_coverage = coverage_of(cover_file) if cover_file is not None else None

    import gc, pytest

    # On a mutants' run: what serves each mutant (decision 0022).
    serve = serve_mutants(mutants_of, os, sys, spawned) if mutants_of is not None else None
    main = pytest.main
    import _pytest.python, _pytest.unittest

    call_test = _pytest.python.pytest_pyfunc_call
    unittest_item = _pytest.unittest.TestCaseFunction
    add_failure = unittest_item._addexcinfo

    # pytest files a unittest test's failures on its item, which the package can reach; the record hears of each first.
    def noting_failure(self, rawexcinfo):
        record.send(("unittest failed", self))
        return add_failure(self, rawexcinfo)

    unittest_item._addexcinfo = noting_failure

    class Verdict:
        @pytest.hookimpl(hookwrapper=True, trylast=True)
        def pytest_sessionfinish(self, session, exitstatus):
            yield
            # Read outside the record's frame: coverage.py's objects are within the package's reach.
            measured = finish_coverage() if finish_coverage is not None else None
            try:
                record.send(("finish", (exitstatus, measured)))
            except StopIteration:
                pass

        @pytest.hookimpl(tryfirst=True)
        def pytest_collection(self, session):
            record.send(("start", session))

        def pytest_collection_finish(self, session):
            record.send(("collected", session))

        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_runtest_call(self, item):
            record.send(("calling", item))
            yield
            record.send(("ran", item))

        @pytest.hookimpl(tryfirst=True)
        def pytest_pyfunc_call(self, pyfuncitem):
            # pytest's own way of calling a test function, with nothing between this frame and the test's but pytest's:
            # whether the function returned is seen here, before any wrapper (pluggy's, capture's) could swallow what it
            # raised. No name looked up here at the call: no built-in, no class to match an exception against.
            returned = False
            try:
                result = call_test(pyfuncitem)
                returned = True
            finally:
                record.send(("returned", (pyfuncitem, returned)))
            return result

        def pytest_collectreport(self, report):
            record.send(("collect", report))

        def pytest_runtest_logreport(self, report):
            record.send(("report", report))

    # The closure cells of the gate's own functions within the package's reach can be rewritten (cell_contents): the
    # record looks at them with pytest's machinery.
    own_functions = [noting_failure] + [value for value in vars(Verdict).values() if isinstance(value, types.FunctionType)]
    record.send(("own", ([cell for function in own_functions for cell in function.__closure__ or ()], unittest_item)))

    def timeout_plugin():
        timeout = types.ModuleType("rpg_forge_timeout")
        exec(compile(timeout_source, "<rpg-forge timeout plugin>", "exec"), timeout.__dict__)
        return timeout

    # Everything so far (pytest's modules, this bootstrap) lives as long as the interpreter: out of the collector's
    # sight, pytest's full collections at the end of a session (five of them, in its unraisable-exception plugin) cost
    # a few milliseconds instead of 80 (issue 16). What the package and its tests make is collected as before.
    gc.freeze()
    if mutants_of is None:
        raise leave(main(args, plugins=[timeout_plugin(), Verdict()]))
    for source in mutants:
        serve(source)
        main(args, plugins=[timeout_plugin(), Verdict()])
    # Each run's record is in the report; the interpreter's own status says only that they all ran.
    raise leave(0)


def serve_mutants(path, os, sys, spawned):
    """
    An import hook that serves one source in place of the file at path, never from or to the bytecode cache. Between
    sessions it forgets the package's modules and whether the last session's tests started a process (spawned[0], which
    the guard sets: such a process imports the file from disk and never the mutant).
    """
    from importlib.machinery import PathFinder, SourceFileLoader
    from importlib.util import spec_from_file_location

    root = os.path.realpath(os.getcwd()) + "/"
    current = [None]
    # The module's last name, which every import of the file carries: the one name worth a second look on the path.
    stem = os.path.basename(os.path.dirname(path)) if os.path.basename(path) == "__init__.py" else os.path.basename(path)[:-3]
    class MutantLoader(SourceFileLoader):
        def path_stats(self, source_path):
            # No stats, no cached bytecode: neither the original's .pyc nor one written for a mutant.
            raise OSError("a mutant is compiled from its source")

        def get_data(self, data_path):
            if data_path == self.path:
                return current[0].encode("utf-8")
            return super().get_data(data_path)

    class MutantFinder:
        @staticmethod
        def find_spec(name, import_path=None, target=None):
            if name.rpartition(".")[2] != stem:
                return None
            spec = PathFinder.find_spec(name, import_path, target)
            if spec is None or spec.origin is None or os.path.realpath(spec.origin) != path:
                return None
            return spec_from_file_location(
                name, spec.origin, loader=MutantLoader(name, spec.origin), submodule_search_locations=spec.submodule_search_locations
            )

    sys.meta_path.insert(0, MutantFinder)

    def forget(module):
        where = [getattr(module, "__file__", None) or ""] + list(getattr(module, "__path__", None) or [])
        return any(isinstance(p, str) and os.path.realpath(p).startswith(root) for p in where if p)

    def serve(source):
        # The package and its tests imported afresh for each mutant: nothing of the last one's modules is left.
        for name, module in list(sys.modules.items()):
            if forget(module):
                del sys.modules[name]
        current[0] = source
        spawned[0] = False

    return serve


_gate(__LIMITS__, __JUNIT__, __TIMEOUT__, __ARGS__, __COVER__, __MUTANTS__)
`;

/**
 * Python source of the bootstrap for one run. Values go in as JSON, which is valid Python for strings, numbers and
 * lists. One pass with a replacer function: a value is never searched for the next placeholder, and `$'` or `$&` in a
 * test id (a parametrized test's id is the package's text) is not one of String.replace's patterns.
 */
export function gateBootstrapSource(settings: BootstrapSettings): string {
  const values: Record<string, string> = {
    LIMITS: JSON.stringify(settings.limits),
    JUNIT: JSON.stringify(settings.junitPath),
    TIMEOUT: JSON.stringify(settings.timeoutPluginSource),
    ARGS: JSON.stringify(settings.pytestArgs),
    COVER: settings.coverFile === undefined ? "None" : JSON.stringify(settings.coverFile),
    MUTANTS: settings.mutantsOf === undefined ? "None" : JSON.stringify(settings.mutantsOf),
  };
  return SOURCE.replace(/__(LIMITS|JUNIT|TIMEOUT|ARGS|COVER|MUTANTS)__/g, (_, name: string) => values[name]!);
}
