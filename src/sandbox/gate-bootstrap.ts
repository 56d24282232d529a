import { LAUNCHER_SOURCE, REPORT_FD } from "./gate-launcher-source.js";
import { MAX_JUNIT_BYTES, REPORT_KEY_BYTES } from "./signed-report.js";
import { GUARD_EXIT, GUARD_SOURCE } from "./gate-guard-source.js";
import { COVERAGE_SOURCE, MUTANTS_SOURCE } from "./gate-measures-source.js";
import { RUNNER_CHECKS_SOURCE } from "./gate-runner-checks-source.js";

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
   * report carries each run's record in `variants`. The sources arrive after the key, with the request. A measure (decision
   * 0022), never part of a verdict.
   */
  mutantsOf?: string;
}

/**
 * What a gate runs (`_gate`), in a child the launcher forked for it (gate-launcher-source.ts; the launcher's program
 * reaches `python -s` through a pipe, with PYTHONSAFEPATH set, never written to disk, so a process left behind by an
 * earlier gate has no file to rewrite). The child has its own session, no capability, no way to gain one, no ctypes
 * loaded, and no process it starts may trace it (the launcher's confinement, gate-confinement-source.ts). Before any
 * generated code can run, `_gate`:
 * 1. sets the resource limits (hard and soft, so they cannot be raised again);
 * 2. takes the run's key from the bytes the launcher read after the request, and wipes them; the key and the record of
 *    outcomes then live only in the frame of a suspended generator, and nothing of the gate is a global of `__main__`;
 * 3. installs the guard (guard_for), an audit hook (PEP 578) that ends the interpreter
 *    with GUARD_EXIT: whenever anything reads the frame of the gate's own generators;
 *    with code of the package on the stack, when it reaches the garbage collector's
 *    object lists, ctypes, tracing, new code objects or the process's memory, compiles
 *    or runs code other than through the import system, namedtuple, dataclasses or a
 *    parser, or reaches for frames other than through library functions that hand none
 *    back; with no frame of the package on the stack, whenever the library frame that raised
 *    the event does not name the operation itself; and, whoever asks, whenever a frame it lets
 *    out leads to the gate's own. An audit hook cannot be removed. On a coverage run, coverage.py's own code may
 *    start its tracer under the package's frames (a thread's first frame), since that run
 *    is a measure, never a verdict;
 * 4. replaces signal.signal (a handler is handed a frame) by one that checks the stack and installs no handler but the
 *    default, ignoring and the timeout plugin's, and _imp.create_builtin by one that never makes _signal (or _imp) again;
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
const SOURCE = [
  GUARD_SOURCE,
  RUNNER_CHECKS_SOURCE,
  COVERAGE_SOURCE,
  String.raw`
def _gate(limits, junit_path, timeout_source, args, cover_file, mutants_of, secret_box):
    import posix, resource, sys, sysconfig

    for name, value in limits:
        which = getattr(resource, name)
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    import _thread, operator, os

    # No compiled bytecode from beside a source, the package's or pytest's cache of rewritten tests: whoever ran the
    # tests before (a gate in process mode, the user) may have written it. A folder under a file never exists.
    sys.pycache_prefix = "/dev/null/rpg-forge"

    getframe, get_ident = sys._getframe, _thread.get_ident
    main_thread = get_ident()
    # Bound here, before any code of the package runs: what the record and the report call is never looked up on a
    # module the tests can change (posix.close, json.encoder's functions, signal.SIG_DFL) once they run. Nor is a
    # built-in: these functions are __main__'s, whose globals the tests can write (a name bound there, or a key whose
    # hash is a built-in's name and whose __eq__ is theirs), and a global name is looked up there before the built-ins.
    write, exit_now, close, open_file, read, pid_of = posix.write, posix._exit, posix.close, posix.open, posix.read, posix.getpid
    read_only = posix.O_RDONLY | posix.O_NOFOLLOW
    size, integer, some, type_of, text = len, int, any, type, str
    some_error, import_error, os_error, type_error, stop = Exception, ImportError, OSError, TypeError, StopIteration
    # stderr as it is before pytest captures it, for the guard's last word.
    stderr = posix.dup(2)
    posix.set_inheritable(stderr, False)

    def end_run(why):
        write(stderr, ("\nrpg-forge: %s; the run was ended\n" % why).encode())
        exit_now(${GUARD_EXIT})

    root = os.path.realpath(posix.getcwd()) + "/"
    # The bottom of the stack: the interpreter's -c, which runs the launcher's program.
    bottom = getframe(0)
    while bottom.f_back is not None:
        bottom = bottom.f_back
    attribution = theirs_for(root, sys, os, sysconfig, bottom.f_code)
    theirs = attribution[0]
    del bottom

    def among(code, codes):
        # By identity: an equal code object can be compiled.
        for other in codes:
            if code is other:
                return True
        return False

    def fed_by_the_package(callers, run=None):
        # The record's and the installer's own look at the whole stack, from C alone: the guard skips what happens while
        # it is busy, and stops at the first frame of the package it finds, which a library entry may excuse. The only
        # look at each entry: the guard leaves this function's sys._getframe to it (a look of its own found nothing this
        # one misses, and walking a pytest stack twice more at each entry was a fifth of a gate's CPU).
        frame = getframe(2)
        # Whoever resumed the generator must be one of the gate's own functions (by identity: an equal code object can be
        # compiled): a finalizer or a C iterator can call send with no frame of the package on the stack at all.
        code = frame.f_code
        for caller in callers:
            if code is caller:
                break
        else:
            end_run("something other than rpg-forge's own hooks fed its record (%s)" % code.co_name)
        # run, once the record knows pytest's: (the verdict plugin's hooks, pluggy's functions that call a hook,
        # pytest's finalizer loops, runtestprotocol). A hook of the verdict plugin is pytest's to call, through pluggy,
        # never from a finalizer loop: the package's finalizers, C partials of the plugin's own methods, called them
        # with no frame of the package on the stack and fed the record what they liked. Returns the items of the
        # runtestprotocol frames on the stack (pytest running a test), for the record to match with what it is told.
        running = []
        if run is not None:
            hooks, dispatchers, loops, protocol = run
            if among(code, hooks) and frame.f_back is not None and not among(frame.f_back.f_code, dispatchers):
                end_run("rpg-forge's own hook fed its record, called by something other than pytest's hook call")
        while frame is not None:
            code = frame.f_code
            if theirs(code):
                end_run("code of the package fed rpg-forge's record from %s" % code.co_filename.replace(root, "", 1))
            if run is not None:
                if among(code, loops):
                    end_run("rpg-forge's record was fed from one of pytest's finalizer loops")
                if code is protocol:
                    running.append(frame.f_locals.get("item"))
            frame = frame.f_back
        return running

    def believe(changed):
        if changed is not None:
            end_run("%s changed while the tests ran" % changed)

    # The record and the key live in the frame of a suspended generator; the guard refuses that frame to
    # everyone. Every entry into it looks at the whole stack (with code of the package on it, the run ends)
    # and must come from the main thread, where pytest calls its hooks. The verdict
    # plugin hands it pytest's objects as they are and the record reads them itself, with built-ins bound
    # before any code of the package ran: the plugin's closure cells can be rewritten, its frame cannot.
    def recorder(key, digest, encode, runs, spawned, checks, gate_code):
        same, own_pid = operator.is_, pid_of()
        state_at_start, settle, changed_since, collected, test_of, outcome_of, plain, pinned, collected_method = checks
        tests, collect_errors, variants = {}, [], []
        start = items = ran = returned = own = None
        unittest_failed = unittest_returned = False
        # Until the gate hands the record its own hooks ("own"), only the gate itself feeds it.
        callers, run = (gate_code,), None
        answer = None
        while True:
            kind, value = yield answer
            answer = None
            running = fed_by_the_package(callers, run)
            # What pytest is running as the record is fed: one test's protocol for what is about a test (by the identity of
            # the item), none for the session's own steps.
            about = value[0] if kind == "returned" else value if kind in ("calling", "ran", "pycall") else None
            if run is not None and kind != "unittest failed":
                if about is not None and (size(running) != 1 or not same(running[0], about)):
                    end_run("rpg-forge's record was told of a test pytest is not running")
                if kind == "report" and size(running) != 1 or kind in ("start", "collected", "collect", "finish") and running:
                    end_run("rpg-forge's record was told of a step pytest is not taking")
            if get_ident() != main_thread:
                end_run("the verdict's record was fed from another thread")
            if kind == "collect":
                nodeid = plain(value.nodeid)
                # Once each: pytest 7 collects a file again for every test id of it it was given.
                if value.failed and nodeid not in collect_errors:
                    collect_errors.append(nodeid)
            elif kind == "own":
                # Before any code of the package ran: the gate's own closure cells, pytest's unittest item class, and the
                # code of the hooks that feed the record from now on. Once.
                if own is not None:
                    end_run("rpg-forge's record was told twice what its own hooks are")
                own, callers, run = value[:2], value[2], value[3]
            elif kind == "start":
                # Once a session: taken again later, the baseline would take in whatever the tests had changed by then.
                if start is not None:
                    end_run("rpg-forge's record was told twice that the session started")
                start = state_at_start(value.config, own[0])
            elif kind == "collected":
                if items is not None:
                    end_run("rpg-forge's record was told twice that the collection finished")
                items = collected(value)
                settle(start)
            elif kind == "pycall":
                answer = pinned(items, value)
                if answer is None:
                    tests[plain(value.nodeid)] = "error"
            elif kind == "returned":
                # Once a call: a second word for the same call is somebody else's.
                returned = value if returned is None else (value[0], False)
            elif kind == "unittest failed":
                unittest_failed = True
            elif kind == "unittest returned":
                # unittest's own _callTestMethod saw the collected function return, for the test pytest is running.
                if size(running) == 1 and same(type_of(running[0]), own[1]) and collected_method(items, running[0], value[1]):
                    unittest_returned = True
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
                    returned, unittest_failed, unittest_returned = None, False, False
                elif nodeid is not None:
                    # A pass counts only for the collected test whose function this plugin saw return, right around the
                    # call (a unittest test: none of its failures handed to pytest): a runner that skips this plugin, a
                    # wrapper that swallows the exception, or a report rewritten after the fact passed nothing.
                    if same(type_of(item), own[1]):
                        ran = (nodeid, not unittest_failed and unittest_returned)
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
                # A copy forked by the tests carries the key and the record on: it could try again until a run passed.
                if pid_of() != own_pid:
                    end_run("a process forked from the gate tried to sign its report")
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
                    tests, collect_errors, start, items = {}, [], None, None
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

    def installer(install, callers, own_handler):
        result = None
        while True:
            signalnum, handler = yield result
            fed_by_the_package(callers)
            # A handler is handed the frame it interrupted, with no audit event: the record's, if it ran then.
            if not own_handler(handler):
                end_run("something other than rpg-forge's timeout installed a signal handler")
            result = install(signalnum, handler)

    # The launcher's bytes, held by no frame but this one's from here on, and wiped once the key is copied out.
    secret = secret_box.pop()
    # After the key, the mutants' sources when there are any: text, not secret, but out of argv's limits.
    mutants = json.loads(secret[${REPORT_KEY_BYTES}:].decode("utf-8")) if mutants_of is not None else []
    # How many runs the record waits for, on a mutants' run; None on a gate's or a coverage run (one run, one document).
    runs = len(mutants) if mutants_of is not None else None
    def not_json(value):
        raise type_error("the record holds a %s" % type_of(value).__name__)

    # json's C encoder, made now: JSONEncoder.encode would look up json.encoder's functions at the signing, where a
    # test that replaced them could rewrite the document before it is signed. str.join belongs to a built-in type.
    c_encode = _json.make_encoder(None, not_json, _json.encode_basestring_ascii, None, ":", ",", False, False, True)
    join = "".join

    def encode(document):
        return join(c_encode(document, 0))

    # On a mutants' run: whether the current session's tests started a process, set by the guard, read by the record.
    spawned = [False] if mutants_of is not None else None
    # Before the guard exists: asking for a frame raises an audit event it would look at.
    gate_code = getframe(0).f_code
    record = recorder(bytes(secret[:${REPORT_KEY_BYTES}]), _hashlib.hmac_digest, encode, runs, spawned, runner_checks(sys), gate_code)
    secret[:] = bytes(size(secret))
    del secret
    next(record)

    def guarded_signal(signalnum, handler):
        return installing.send((signalnum, handler))

    function_type, default_int_handler = types.FunctionType, _signal.default_int_handler
    default_handler, ignoring_handler = signal.SIG_DFL, signal.SIG_IGN

    def own_handler(handler):
        # The default, ignoring, and the timeout plugin's own handlers (it puts back what it found: an int from _signal).
        if type_of(handler) is integer:
            return handler == 0 or handler == 1
        if handler is default_handler or handler is ignoring_handler or handler is default_int_handler:
            return True
        return type_of(handler) is function_type and handler.__code__.co_filename == "<rpg-forge timeout plugin>"

    installing = installer(_signal.signal, (guarded_signal.__code__,), own_handler)
    next(installing)

    # A second instance of the _signal module (the import system makes one from the built-in's spec, with no audit
    # event) installs handlers the replaced signal.signal never sees. Built-in modules are made through the import
    # system's _imp.create_builtin, replaced by one that makes neither _signal nor _imp (whose copy would hold the
    # original) again; the original lives in a generator's frame, which the guard refuses to everyone.
    import _imp

    class BuiltinSpec:
        __slots__ = ("name",)

        def __init__(self, name):
            self.name = name

    def builder(create, made_of):
        result = None
        while True:
            name = yield result
            if type_of(name) is not text or name == "_signal" or name == "_imp":
                end_run("something made the built-in module %s a second time" % (name if type_of(name) is text else "?"))
            try:
                result = (create(made_of(name)), None)
            except some_error as error:
                result = (None, "%s: %s" % (type_of(error).__name__, error))

    making = builder(_imp.create_builtin, BuiltinSpec)
    next(making)

    def guarded_create(spec):
        module, failure = making.send(spec.name)
        if failure is not None:
            raise import_error(failure)
        return module

    _imp.create_builtin = guarded_create
    tracer = ()
    if cover_file is not None:
        import coverage

        tracer = tuple(set(folder + "/" for folder in (os.path.dirname(coverage.__file__), os.path.realpath(os.path.dirname(coverage.__file__)))))
    # The timeout plugin, made before the guard: nothing compiles under a name of the gate's own once it watches.
    timeout = types.ModuleType("rpg_forge_timeout")
    exec(compile(timeout_source, "<rpg-forge timeout plugin>", "exec"), timeout.__dict__)
    # Bound to no name here: the guard's state is out of reach of anyone who finds this frame.
    sys.addaudithook(
        guard_for(
            root,
            attribution,
            ((record, installing, making), (record.gi_frame, installing.gi_frame, making.gi_frame)),
            fed_by_the_package.__code__,
            getframe,
            sys._current_frames,
            (write, exit_now, stderr),
            sysconfig,
            os,
            tracer,
            spawned,
            memory_paths(posix),
        )
    )

    _signal.signal = signal.signal = guarded_signal
    # Processes the tests start must not inherit the report's pipe.
    posix.set_inheritable(${REPORT_FD}, False)

    def read_junit(path):
        try:
            fd = open_file(path, read_only)
        except os_error:
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
    import unittest.case

    call_method = unittest.case.TestCase._callTestMethod

    # unittest's own call of a test method (a TestCase's run, which the package's class may override, passes only through it).
    def noting_return(self, method):
        result = call_method(self, method)
        record.send(("unittest returned", (self, method)))
        return result

    unittest.case.TestCase._callTestMethod = noting_return

    class Pinned:
        # What pytest's pytest_pyfunc_call reads of an item, with the function the record vetted in place of item.obj.
        __slots__ = ("item", "obj")

        def __init__(self, item, function):
            self.item, self.obj = item, function

        @property
        def funcargs(self):
            return self.item.funcargs

        @property
        def _fixtureinfo(self):
            return self.item._fixtureinfo

        @property
        def nodeid(self):
            return self.item.nodeid

    # pytest 8.4 and later collect garbage five times as the configuration is undone, after the session, to report the
    # objects that raise as they are collected; nothing after the session changes the record, so the gate asks for none,
    # as pytest's own pytester does for its in-process runs. The gate ends its process once pytest returns; between a
    # mutants' run's sessions, _session collects once, so what one session left is not finalized in the next one's tests.
    try:
        from _pytest.unraisableexception import gc_collect_iterations_key as collections_at_end
    except ImportError:
        collections_at_end = None

    class Verdict:
        def pytest_configure(self, config):
            if collections_at_end is not None:
                config.stash[collections_at_end] = 0

        @pytest.hookimpl(hookwrapper=True, trylast=True)
        def pytest_sessionfinish(self, session, exitstatus):
            yield
            # Read outside the record's frame: coverage.py's objects are within the package's reach.
            measured = finish_coverage() if finish_coverage is not None else None
            try:
                record.send(("finish", (exitstatus, measured)))
            except stop:
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
                function = record.send(("pycall", pyfuncitem))
                result = call_test(pyfuncitem if function is None else Pinned(pyfuncitem, function))
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
    verdict_functions = [value for value in vars(Verdict).values() if type_of(value) is function_type]
    own_functions = [noting_failure, noting_return] + verdict_functions
    own_cells = [cell for function in own_functions for cell in function.__closure__ or ()]
    # How pytest calls its hooks and runs a test, by the identity of the code: pluggy's calls of a hook implementation
    # (pluggy 1.5 steps an old-style hookwrapper in a function of its own), pytest's finalizer loops, runtestprotocol.
    import pluggy._callers, _pytest.fixtures, _pytest.runner

    dispatchers = tuple(
        function.__code__
        for function in (pluggy._callers._multicall, getattr(pluggy._callers, "run_old_style_hookwrapper", None))
        if function is not None
    )
    loops = (_pytest.runner.SetupState.teardown_exact.__code__, _pytest.fixtures.FixtureDef.finish.__code__)
    hooks = tuple(function.__code__ for function in verdict_functions)
    run = (hooks, dispatchers, loops, _pytest.runner.runtestprotocol.__code__)
    record.send(("own", (own_cells, unittest_item, tuple(function.__code__ for function in own_functions), run)))

    # Everything so far (pytest's modules, this bootstrap) lives as long as the interpreter: out of the collector's
    # sight, a full collection while the tests run costs a few milliseconds instead of 80 (issue 16). What the package
    # and its tests make is collected as before.
    gc.freeze()

    # Made apart from this function: a closure of _gate's would share its cells (end_run's way out among them), and this
    # one stays on the stack, in _session's frame, while the package's code runs.
    leave = _ending(posix._exit, int, isinstance, BaseException, sys)

    # Returned rather than run from here: this frame's cells (end_run's way out, the record's checks) can be rewritten by
    # anyone who finds the frame, and no frame of _gate's may be on the stack while the package's code runs.
    return main, args, (lambda: [timeout, Verdict()]), mutants if mutants_of is not None else None, serve, leave, gc.collect


def _ending(exit_now, integer, instance_of, any_error, sys):
    """
    The gate's end once pytest's session has returned, when its report is signed and sent: nothing the interpreter would
    do on its way out (atexit handlers, finalizers, waiting for threads, freeing each object of a forked copy of the
    launcher's memory) could change the report, and that way out was an eighth of a small gate's CPU (issue 16). What
    pytest printed is flushed and the process ends with the session's status, which the engine holds against the
    report's: a flush or a status of the package's that raises changes only that status, never the report.
    """

    def leave(status):
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except any_error:
                pass
        try:
            code = 0 if status is None else integer(status) if instance_of(status, integer) else 1
        except any_error:
            code = 1
        exit_now(code)

    return leave


def _session(main, args, plugins, mutants, serve, leave, collect):
    """What the gate runs once _gate has set it up and returned: pytest's session, or one for each mutant."""
    if mutants is None:
        leave(main(args, plugins=plugins()))
    for source in mutants:
        collect()
        serve(source)
        main(args, plugins=plugins())
    # Each run's record is in the report; the interpreter's own status says only that they all ran.
    leave(0)
`,
  MUTANTS_SOURCE,
  LAUNCHER_SOURCE,
  // Called on the value returned, bound to no global: only a gate's forked child returns, with its gate to run.
  "import sys\n_launcher(sys.argv[1])()\n",
]
  .map((part) => part.trim() + "\n")
  .join("\n\n");

/** The launcher's program (decision 0031): the gate's definitions, then the launcher that serves them. */
export function gateLauncherProgram(): string {
  return SOURCE;
}

/** What _gate is called with, as the launcher's request carries it (JSON). */
export function gateSettings(settings: BootstrapSettings): Record<string, unknown> {
  return {
    limits: settings.limits,
    junit: settings.junitPath,
    timeout: settings.timeoutPluginSource,
    args: settings.pytestArgs,
    cover: settings.coverFile ?? null,
    mutants: settings.mutantsOf ?? null,
  };
}
