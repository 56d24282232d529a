import { MAX_SIGNED_REPORT_BYTES } from "./signed-report.js";

/** The gate's descriptor for its signed report: a pipe to the launcher, which no process the tests start inherits. */
export const REPORT_FD = 5;

/** The frames a launcher writes on its stdout: a kind byte, a 4-byte big-endian length, the payload. */
export const FRAME = {
  /** Imports done, ready for a gate. */
  ready: "R",
  /** The gate's process id (the launcher's namespace's), as text. */
  pid: "P",
  /** Bytes the gate wrote to stdout or stderr. */
  output: "O",
  /** Bytes of the signed report, up to MAX_SIGNED_REPORT_BYTES. */
  report: "S",
  /** The gate is over and everything it left is gone: JSON `{"code", "killedBy", "retire"}`. */
  exit: "X",
} as const;

/**
 * The plugins no gate loads, as pytest's arguments: the cache writes into the package folder (and its records would
 * reach the next run). The launcher makes each gate's configuration with them excluded (_made_configuration).
 */
export const EXCLUDED_PLUGIN_ARGS = ["-p", "no:cacheprovider"] as const;

/** The launcher's descriptor for its program, which it reads to the end and closes before anything else. */
export const PROGRAM_FD = 3;

/**
 * What the launcher's interpreter is given on its command line: a loader that reads the program from PROGRAM_FD. The
 * program (tens of kilobytes) is neither on disk, where a process left behind could rewrite it, nor in the command
 * line of a process that lives as long as the run, where every `ps` would print it.
 */
export const PROGRAM_LOADER = [
  "def _program():",
  "    import posix",
  '    data = b""',
  "    while True:",
  `        chunk = posix.read(${PROGRAM_FD}, 1 << 20)`,
  "        if not chunk:",
  "            break",
  "        data += chunk",
  `    posix.close(${PROGRAM_FD})`,
  '    return compile(data, "<rpg-forge launcher>", "exec")',
  "exec(_program())",
].join("\n");

/**
 * The launcher (decision 0031), as Python source run after the gate's definitions: `python -s -c <PROGRAM_LOADER> <mode>`,
 * mode "bwrap" inside a sandbox of its own or "process". It imports pytest and everything a gate imports, freezes its
 * objects, and then serves one gate at a time, each in a forked child that runs _gate. It never imports the package.
 *
 * A request is one JSON line on stdin, `{"gate": {...}, "secret": n}`, followed by n bytes: the run's key and, on a
 * mutants' run, their sources; never in an argument or a variable. `{"abort": true}` during a gate ends it; the end of
 * stdin ends the launcher. Before it answers a gate's end it has ended every process the gate left: its process group,
 * and everything else that was its descendant (orphans come to the launcher, a child subreaper, whatever session they
 * left for; in bubblewrap, whatever else lives in the sandbox's PID namespace). It retires (exits after its answer) when
 * it could not, or when the gate left anything in the sandbox's shared places (/tmp, /dev) for the next one to find.
 */
export const LAUNCHER_SOURCE = String.raw`
def _hook_parameters(read, function_names, method_names, type_of, function_type, method_type):
    """
    pluggy's reading of a hook implementation's parameters, with what the launcher read of pytest's own hooks: a session
    that makes its own configuration (one after a mutants' run's first, _made_configuration) registers pytest's plugins
    again, and pluggy reads each hook's parameters with inspect as it registers it.
    About 170 of a session's 215 hooks are the launcher's to read once; those of the plugins a session makes (its
    terminal reporter and the like) are read in each gate. A plain function, or a method of one, is looked up by its identity
    (neither type can be subclassed, so the lookup runs no code of the package); anything else, and anything the
    launcher did not read, is read as pluggy reads it. rpg-forge adds nothing to the tables in a gate; the package can
    change its own gate's copy, as it can replace pluggy's function itself, and a hook registered after the collection
    starts ends the run either way (runner_checks). A stale entry gives pytest's own reading of its own function. It
    runs after the package's code, so it names no global.
    """

    def varnames(func):
        kind = type_of(func)
        if kind is function_type:
            names = function_names(func)
            if names is not None:
                return names
        elif kind is method_type:
            inner = func.__func__
            if type_of(inner) is function_type:
                names = method_names(inner)
                if names is not None:
                    return names
        return read(func)

    return varnames


def _made_configuration(config_module, made, excluded, environ, path_type, type_of, text, listed, ordered, problem):
    """
    pytest's get_config for a gate, handing its first session the configuration the launcher made: a session's first
    step makes a configuration and registers pytest's thirty-odd default plugins in it, a fifth of a small gate's CPU,
    the same each time but for the arguments and folder it notes. The launcher made one (made) with the plugins every
    gate excludes (-p no:...); each forked gate has a copy of its own, which its first session takes with its own
    arguments, plugins and working directory. The first call puts pytest's own get_config back, so that every session
    after the first (a mutants' run) makes its own, and nothing refers to this function or its cells by the time any
    code of the package runs. A session whose arguments exclude other plugins, one that asks for pytest's trace
    (PYTEST_DEBUG, read as a plugin manager is made) and a handover that fails get a configuration made as pytest makes
    it. The configuration lives in the gate's frozen memory, where the collector never looks: on a mutants' run, what
    the first session made stays until the gate ends, since the session registers itself in it.
    """
    make, invocation = config_module.get_config, config_module.Config.InvocationParams

    def exclusions(args):
        # pytest's own reading of "-p no:name" (PytestPluginManager.consider_preparse, exclude_only).
        found, rest = [], listed(args)
        while rest:
            option = rest.pop(0)
            if type_of(option) is not text:
                continue
            if option == "-p":
                if not rest:
                    break
                value = rest.pop(0)
            elif option.startswith("-p"):
                value = option[2:]
            else:
                continue
            value = value.strip()
            if value.startswith("no:"):
                found.append(value)
        return ordered(found)

    wanted = exclusions(excluded)

    def get_config(args=None, plugins=None):
        config_module.get_config = make
        if args and exclusions(args) == wanted and "PYTEST_DEBUG" not in environ:
            try:
                made.invocation_params = invocation(args=args, plugins=plugins, dir=path_type.cwd())
                return made
            except problem:
                pass
        return make(args, plugins)

    return get_config


def _launcher(mode):
    import fcntl, gc, importlib, json, os, select, signal, stat, sys, tempfile, time

    # No collections while pytest is imported: what the imports make lives as long as the launcher (frozen below), and
    # the collector's passes over it were a tenth of the start.
    gc.disable()
    import _pytest.config

    in_namespace = mode == "bwrap"
    # kill(-1) ends every process this one may signal: only ever inside bubblewrap's PID namespace, where this is the
    # first process after bubblewrap's own.
    if in_namespace and os.getpid() != 2:
        raise SystemExit("rpg-forge launcher: not the first process of a PID namespace of its own")
    me = os.getpid()
    os.chdir("/")

    # What every gate imports, imported once. Nothing of the package: its directory is no entry of sys.path here.
    for name in sorted(set(_pytest.config.essential_plugins + _pytest.config.default_plugins)):
        try:
            importlib.import_module("_pytest." + name)
        except ImportError:
            pass
    import _hashlib, _json, _signal, _thread, operator, pathlib, pytest, resource, sysconfig, types
    import _pytest.python, _pytest.unittest
    # What a session imports on its own, measured by listing sys.modules in a gate: pytest's debugging plugin imports
    # pdb, its faulthandler plugin faulthandler; the guard reads sysconfig's paths.
    # coverage.py where it is installed: a coverage run imports it after the guard, and a gate compiles nothing it
    # imports from a cache (sys.pycache_prefix points nowhere in _gate), so its forty modules would be compiled each time.
    for name in ("_pytest._argcomplete", "faulthandler", "pdb", "coverage"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    sysconfig.get_paths()
    # pytest's own hooks, read once: a configuration made here registers every default plugin (and its hook
    # specifications) through pluggy's reading, which notes what it read (_hook_parameters). Made with the plugins every
    # gate excludes, it is then the configuration a gate's first session takes (_made_configuration). With the
    # collector off, it stays in the frozen memory every gate shares; it holds no key (a gate's comes later).
    import pluggy._hooks

    read, function_names, method_names = pluggy._hooks.varnames, {}, {}

    def note(func):
        names = read(func)
        if type(func) is types.FunctionType:
            function_names[func] = names
        elif type(func) is types.MethodType and type(func.__func__) is types.FunctionType:
            method_names[func.__func__] = names
        return names

    pluggy._hooks.varnames = note
    made, excluded = None, ${JSON.stringify(EXCLUDED_PLUGIN_ARGS)}
    try:
        made = _pytest.config.get_config(list(excluded))
    except Exception:
        pass  # what was read before is as true; the rest is read in each gate
    finally:
        pluggy._hooks.varnames = _hook_parameters(read, function_names.get, method_names.get, type, types.FunctionType, types.MethodType)
    if made is not None:
        _pytest.config.get_config = _made_configuration(
            _pytest.config, made, excluded, os.environ, pathlib.Path, type, str, list, sorted, Exception
        )
    # Patterns pytest compiles on first use, compiled once here into the caches every gate inherits (re's and fnmatch's):
    # the JUnit report escapes each test's text with a pattern of every character XML refuses, whose compiling was
    # about a tenth of a small gate's time, and collection matches file names against the default globs.
    import _pytest.junitxml, fnmatch

    for warm_up in (lambda: _pytest.junitxml.bin_xml_escape(""), lambda: _pytest.junitxml.mangle_test_address("t.py::t")):
        try:
            warm_up()
        except Exception:
            pass
    for pattern in ("test_*.py", "*_test.py"):
        fnmatch.fnmatch("t.py", pattern)

    def shared_places():
        # bubblewrap's /dev and /tmp are writable and live as long as the sandbox: what a gate leaves there must not
        # reach the next one. The whole tree, for the folders bubblewrap made above a mount deep in /tmp; the change
        # time, which no one can set back.
        if not in_namespace:
            return None
        seen = []
        for top in ("/dev", "/tmp"):
            try:
                device = os.stat(top).st_dev
            except OSError:
                continue
            folders = [top]
            while folders:
                folder = folders.pop()
                try:
                    with os.scandir(folder) as listing:
                        entries = list(listing)
                except OSError:
                    seen.append((folder, "unreadable"))
                    continue
                for entry in entries:
                    info = entry.stat(follow_symlinks=False)
                    # Not what is mounted there (the package, the private folder, the host's devices): the engine's own
                    # to look after, or not writable.
                    if info.st_dev != device:
                        continue
                    seen.append((entry.path, info.st_ino, info.st_mode, info.st_rdev, info.st_size, info.st_ctime_ns))
                    if stat.S_ISDIR(info.st_mode):
                        folders.append(entry.path)
        return sorted(seen, key=repr)

    as_found = shared_places()
    gc.freeze()
    gc.enable()

    def send(kind, payload=b""):
        data = kind + len(payload).to_bytes(4, "big") + payload
        while data:
            data = data[os.write(1, data):]

    pending = bytearray()

    def fill():
        chunk = os.read(0, 1 << 16)
        pending.extend(chunk)
        return bool(chunk)

    def next_line():
        while b"\n" not in pending:
            if not fill():
                return None
        end = pending.index(b"\n")
        line = bytes(pending[:end])
        del pending[: end + 1]
        return json.loads(line)

    def next_bytes(count):
        while len(pending) < count:
            if not fill():
                raise SystemExit("rpg-forge launcher: the request ended early")
        data = bytearray(pending[:count])
        del pending[:count]
        return data

    def become_gate(request, secret, out, report):
        # In the forked child, before anything else: its own session (the group the engine's limits end), and only the
        # descriptors a gate has had: /dev/null, the output pipe, the report's pipe.
        os.setsid()
        if os.getppid() != me:
            os._exit(70)
        out, report = fcntl.fcntl(out, fcntl.F_DUPFD, 64), fcntl.fcntl(report, fcntl.F_DUPFD, 64)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.dup2(report, ${REPORT_FD})
        os.closerange(3, ${REPORT_FD})
        os.closerange(${REPORT_FD} + 1, 1 << 20)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None
        settings, box = request["settings"], [secret]
        return lambda: _session(*_gate(settings["limits"], settings["junit"], settings["timeout"], settings["args"], settings["cover"], settings["mutants"], box))

    def end_gate(pid):
        for end in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                end()
            except ProcessLookupError:
                pass

    def children():
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open("/proc/%s/stat" % name, "rb") as status:
                        fields = status.read().rpartition(b")")[2].split()
                except OSError:
                    continue
                if int(fields[1]) == me:
                    found.append(int(name))
        return found

    def end_leftovers():
        # Done when this process has no child left: every process a gate left is one, or has a living ancestor that is.
        give_up = time.monotonic() + 5
        while time.monotonic() < give_up:
            if in_namespace:
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                while os.waitpid(-1, os.WNOHANG)[0] != 0:
                    pass
            except ChildProcessError:
                return True
            if not in_namespace:
                for pid in children():
                    end_gate(pid)
            time.sleep(0.001)
        return False

    def serve(request, secret):
        out_r, out_w = os.pipe()
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                return become_gate(request, secret, out_w, report_w)
            except BaseException as error:
                os.write(2, ("rpg-forge launcher: the gate could not start: %r\n" % (error,)).encode())
                os._exit(70)
        os.close(out_w)
        os.close(report_w)
        secret[:] = bytes(len(secret))
        send(b"P", str(pid).encode())
        exited = os.pidfd_open(pid)
        poller = select.poll()
        for fd in (out_r, report_r, exited, 0):
            poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + request["hardLimitMs"] / 1000
        killed_by, code, reported, stdin_open, reading = None, None, 0, True, {out_r, report_r}

        def forward(fd):
            nonlocal reported
            data = os.read(fd, 1 << 16) if fd in reading else b""
            if not data:
                if fd in reading:
                    reading.discard(fd)
                    poller.unregister(fd)
                return False
            if fd == out_r:
                send(b"O", data)
            elif reported < ${MAX_SIGNED_REPORT_BYTES}:
                data = data[: ${MAX_SIGNED_REPORT_BYTES} - reported]
                reported += len(data)
                send(b"S", data)
            return True

        while code is None:
            left = deadline - time.monotonic()
            if left <= 0 and killed_by is None:
                killed_by = "time-limit"
                end_gate(pid)
            # An abort may have come with the request's bytes, read before the gate started.
            while b"\n" in pending:
                if next_line().get("abort") and killed_by is None:
                    killed_by = "abort"
                    end_gate(pid)
            for fd, _ in poller.poll(max(left, 0.05) * 1000 if killed_by is None else 50):
                if fd == exited:
                    # Seen before it is reaped, so that its group cannot have been reused when it is ended.
                    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
                    end_gate(pid)
                    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
                    code = status if status >= 0 else 128 - status
                elif fd == 0:
                    # The lines that came are read at the loop's top; the end of the engine's pipe ends the gate too.
                    if not fill():
                        stdin_open = False
                        poller.unregister(0)
                        killed_by = killed_by or "abort"
                        end_gate(pid)
                else:
                    forward(fd)
        os.close(exited)
        ended = end_leftovers()
        # Every writer is gone now, unless a process outside this tree holds a pipe: stop reading after a while.
        drain_until = time.monotonic() + 2
        for fd in (out_r, report_r):
            while time.monotonic() < drain_until and select.select([fd], [], [], max(drain_until - time.monotonic(), 0))[0] and forward(fd):
                pass
            os.close(fd)
        retire = not ended or not stdin_open or shared_places() != as_found
        send(b"X", json.dumps({"code": code, "killedBy": killed_by, "retire": retire}).encode())
        if retire:
            os._exit(0)
        return None

    send(b"R")
    while True:
        request = next_line()
        if request is None:
            os._exit(0)
        gate = serve(request["gate"], next_bytes(request["secret"]))
        if gate is not None:
            return gate
`;
