/**
 * The gate's guard, as Python source for the bootstrap (gate-bootstrap.ts): an audit hook (PEP 578) that ends the
 * interpreter when generated code reaches for the gate's state or the interpreter's internals, and what tells whether a
 * path leads to the process's memory. Defines memory_paths and guard_for.
 */
/** The exit status of a run the guard ended: generated code reached for the interpreter's internals. */
export const GUARD_EXIT = 86;

export const GUARD_SOURCE = String.raw`
def memory_paths(posix):
    """
    What tells whether a path leads to the process's memory (/proc/self/mem and the rest of /proc), however it is
    spelled: bytes, a link, a relative name read from a directory descriptor the event does not show. Bubblewrap shows
    the tests no /proc at all; this is what process mode has. It calls only C (posix.stat, a slot's descriptor): the
    guard runs it while it is busy, and Python it called (os.lstat, a path object's __str__) could be the package's,
    running unwatched.
    """
    import pathlib

    type_of, stat, text, raw, failures, unset = type, posix.stat, str, bytes, (OSError, ValueError), AttributeError
    plain_paths = (pathlib.PosixPath, pathlib.PurePosixPath)
    # What a path object opened as: set when open() asked it for its path.
    spelled = pathlib.PurePath.__dict__["_str"].__get__
    process_files = {"mem", "maps", "smaps", "pagemap", "environ"}
    try:
        proc = stat("/proc").st_dev
    except OSError:
        proc = None

    def reaches_memory(path):
        kind = type_of(path)
        if kind in plain_paths:
            try:
                path = spelled(path)
            except unset:
                return False
        elif kind is not text and kind is not raw:
            return False
        # A relative name may be read from a directory descriptor the event does not show (os.open("mem", dir_fd=...)).
        name = path.rstrip("/" if kind is text else b"/").rpartition("/" if kind is text else b"/")[2]
        if not path.startswith("/" if kind is text else b"/") and (name.decode("utf-8", "replace") if kind is raw else name) in process_files:
            return True
        if proc is None:
            return False
        try:
            return stat(path).st_dev == proc
        except failures:
            return False

    return reaches_memory


def theirs_for(root, sys, os, sysconfig, bottom):
    """
    What tells the package's code from everyone else's: a code object is the package's unless its file is in a folder
    of the interpreter's, pytest's or a library's (sys.path as the gate starts, before pytest puts the package's own
    folders on it, and the standard library's), frozen, or the gate's own; or it is the bottom of the stack (bottom, the
    interpreter's -c). Code of any other file, or of none ("<string>": exec, a skipif condition, the methods dataclasses
    writes), is the package's: it runs what the package wrote. Returns the test and the folders.
    """
    places = set()
    paths = sysconfig.get_paths()
    folders = [paths[kind] for kind in ("stdlib", "platstdlib", "purelib", "platlib")]
    for entry in sys.path:
        if type(entry) is str and entry.startswith("/"):
            folders.append(entry)
    for folder in folders:
        if not os.path.isdir(folder):
            continue
        for form in (folder, os.path.realpath(folder)):
            form = form.rstrip("/") + "/"
            if not form.startswith(root) and not root.startswith(form):
                places.add(form)
    places = tuple(sorted(places)) + ("<frozen ", "<rpg-forge ")

    def theirs(code):
        return code is not bottom and not code.co_filename.startswith(places)

    # Library code that makes code under a library's name from other than that file's bytes, by identity: pytest's
    # assertion rewriting compiles the tree it parsed from the file (a plugin's, too), and types.coroutine marks a
    # function's code as a coroutine's.
    rewriting = sys.modules.get("_pytest.assertion.rewrite")
    own_makers = (getattr(getattr(rewriting, "_rewrite_test", None), "__code__", None), sys.modules["types"].coroutine.__code__)
    return theirs, places, own_makers


def guard_for(root, attribution, protected, own_look, getframe, current_frames, way_out, sysconfig, os, tracer, spawned, reaches_memory):
    """
    The guard: an audit hook (PEP 578), built here so that nothing outside it holds its state. attribution: what
    theirs_for returned. protected: the generators whose frames no one may reach (the record's, the signal installer's,
    the built-in modules' maker), and those frames. own_look: the code of the gate's own walk of the stack, whose sys._getframe the guard leaves to it.
    """
    theirs, places, (rewrite_code, coroutine_code) = attribution
    # Its own way out, from C functions and a descriptor held here alone: the gate's end_run exits through closure cells
    # of the gate's, which anyone who found that frame could rewrite.
    write, exit_now, stderr = way_out

    def end_run(why):
        write(stderr, ("\nrpg-forge: %s; the run was ended\n" % why).encode())
        exit_now(${GUARD_EXIT})

    # Bound now, C alone: the guard reads a library's file to compare it with what is compiled under its name.
    open_fd, read_fd, close_fd, read_only = os.open, os.read, os.close, os.O_RDONLY
    # Built-ins bound now: the guard's functions are __main__'s, whose globals code of the package can write before the
    # guard next runs (a name bound there, or a key whose hash is a built-in's name and whose __eq__ is its own).
    size, any_of, attribute, listed, type_of, text, raw, os_error = len, any, getattr, tuple, type, str, bytes, OSError
    (first, second, third), (first_frame, second_frame, third_frame) = protected
    paths = sysconfig.get_paths()
    library = tuple(os.path.realpath(paths[k]) + "/" for k in ("stdlib", "platstdlib"))
    runner = ("/_pytest/", "/pytest/", "/pluggy/", "/py/", "/iniconfig/")
    # Refused with code of the package anywhere on the stack, whoever raises them.
    hard = ("code.__new__", "sys.settrace", "sys.setprofile")
    collector_lists = ("gc.get_objects", "gc.get_referrers", "gc.get_referents")
    # Refused unless what raised them is one of these: building classes, parsing (ast, typing's forward
    # references, traceback's carets), and the import system.
    compiling = ("compile", "exec")
    raisers = {
        "compile": {"collections/__init__.py", "dataclasses.py", "ast.py", "typing.py"},
        "exec": {"collections/__init__.py", "dataclasses.py"},
    }
    # Refused unless the package reached them through a library function that hands no frame back.
    soft = ("sys._getframe", "sys._current_frames")
    # A generator's, coroutine's or async generator's frame, and what says whether it is running.
    resumable = {"gi_frame": "gi_running", "cr_frame": "cr_running", "ag_frame": "ag_running"}
    frame_attributes = {"tb_frame", *resumable}
    safe_entries = {
        ("logging/__init__.py", name) for name in ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log")
    } | {
        ("warnings.py", "*"), ("enum.py", "*"), ("typing.py", "*"), ("collections/__init__.py", "namedtuple"), ("dataclasses.py", "*"),
        ("abc.py", "*"), ("traceback.py", "format_exc"), ("traceback.py", "format_exception"), ("traceback.py", "print_exc"),
        ("traceback.py", "print_exception"), ("traceback.py", "format_tb"), ("traceback.py", "extract_tb"),
    }
    # What a frame of the library must itself name (in its code's names, or as a constant for getattr) to raise an event
    # with no frame of the package on the stack: a library loop that calls whatever it was handed (weakref.finalize,
    # pytest's finalizers, the import system's _call_with_frames_removed) names none of them, so a callable of the
    # package's, C alone (map, a bound method), raises nothing through it.
    named_by = {
        "sys._getframe": ("_getframe",),
        "sys._current_frames": ("_current_frames",),
        "compile": ("compile", "exec", "eval"),
        "exec": ("exec", "eval"),
        "code.__new__": ("replace", "CodeType"),
    }
    busy = [False]
    # On a mutants' run (spawned is a list then): whether a session's tests started a process, which would import the
    # module from disk and never the mutant (decision 0022).
    starts = {"subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn", "os.system", "os.fork", "os.forkpty", "pty.spawn"}

    def kind_of(event, args):
        if event in hard or event.startswith("ctypes."):
            return "hard"
        # Importing _ctypes raises no ctypes event, and with it any C function can be called, memmove included, without one.
        if event == "import" and args[0] in ("ctypes", "_ctypes") or event == "import" and args[0].startswith("ctypes."):
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

    # A thread the package started (a pool's worker calling code.replace or sys._current_frames for it) may hold no frame
    # of the package's: outside the main thread, a stack without one counts as the package's, for what is refused whoever
    # raises it and for frames.
    import _thread

    thread_of, main_thread = _thread.get_ident, _thread.get_ident()

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

    def names_it(code, event, args):
        if event == "object.__getattr__" or event == "object.__setattr__":
            return args[1] in code.co_names or args[1] in code.co_consts
        for name in named_by.get(event, ()):
            if name in code.co_names:
                return True
        return False

    def called_by_name(frame):
        """
        Whether the library function that raised an event was called by library code that names it, rather than by C a
        callable of the package's is made of: pytest's finalizer loop drove map(attrgetter("frame"), ...) over a
        traceback entry of the package's, and the frame came back to the package. A lambda, a comprehension or a module's
        body is judged by the call of the function it belongs to.
        """
        code = frame.f_code
        caller = frame.f_back
        while caller is not None and code.co_name.startswith("<"):
            frame, code, caller = caller, caller.f_code, caller.f_back
        if caller is None:
            return True
        name = code.co_name
        # A class builds its instances itself (the caller names the class); other special methods Python calls itself.
        if name == "__init__" or name == "__new__":
            name = code.co_qualname.rpartition(".")[0].rpartition(".")[2]
        elif name.startswith("__") and name.endswith("__"):
            return True
        # Or code of its own file calls it: a closure it returned (a decorator's), a generator it resumes.
        return name in caller.f_code.co_names or caller.f_code.co_filename == code.co_filename

    def asked_by(raiser):
        # The import system compiles and runs modules through a helper that calls what it is handed: its caller asks.
        while raiser is not None and raiser.f_code.co_name == "_call_with_frames_removed" and raiser.f_code.co_filename.startswith("<frozen importlib"):
            raiser = raiser.f_back
        return raiser

    def unsafe_to_hand_out(event, args):
        """
        Why a frame handed out must not be, if it must not: its chain (f_back, which no event watches) reaches a frame
        of the gate's own; or it is the frame of a generator or coroutine that is not running, whose f_back is whoever
        resumes it next: resumed by code of the package that the record runs, it leads to the record's frame.
        """
        if event == "sys._getframe":
            frames = (args[0],)
        elif event == "sys._current_frames":
            frames = listed(current_frames().values())
        else:
            frames = (attribute(args[0], args[1], None),)
            running = resumable.get(args[1])
            if running is not None and frames[0] is not None and not attribute(args[0], running, False):
                return "the frame of a generator that is not running, which the record could resume"
        for frame in frames:
            while frame is not None:
                if frame is first_frame or frame is second_frame or frame is third_frame:
                    return "the frame of rpg-forge's own record"
                frame = frame.f_back
        return None

    def file_reads(name, source):
        """Whether source (bytes or text) is, byte for byte, the file at name."""
        if type_of(source) is text:
            source = source.encode("utf-8")
        elif type_of(source) is not raw:
            return False
        try:
            fd = open_fd(name, read_only)
        except os_error:
            return False
        data = b""
        try:
            while True:
                chunk = read_fd(fd, 1 << 20)
                if not chunk:
                    break
                data += chunk
        finally:
            close_fd(fd)
        return data == source

    def importing(raiser):
        """Whether a module is being imported with no frame of the package on the stack."""
        frame, loading = raiser, False
        while frame is not None:
            code = frame.f_code
            if theirs(code):
                return False
            loading = loading or code.co_name == "_load_unlocked" and code.co_filename.startswith("<frozen importlib")
            frame = frame.f_back
        return loading

    def made_as_named(event, args, raiser):
        """
        Whether code made under the name of a library's file (or a frozen module's, or the gate's own) is that file's:
        the import system compiles what a loader of the package's says is a library's, under the name it says.
        """
        name = args[1]
        if type_of(name) is not text or not name.startswith(places):
            return True
        if event == "code.__new__":
            # types.coroutine keeps the name it was given; a library being imported may name its own code after another
            # of its functions (hypothesis does), with no frame of the package on the stack.
            return raiser.f_code is coroutine_code or importing(raiser)
        if name.startswith("<"):
            return False
        return raiser.f_code is rewrite_code if type_of(args[0]) is not raw and type_of(args[0]) is not text else file_reads(name, args[0])

    def compiled_by_allowed(kind, raiser):
        name = raiser.f_code.co_filename
        return name.startswith("<frozen importlib") or in_library(name) in raisers[kind]

    def refused(kind, raiser, event, args):
        callee = None
        frame = raiser
        while frame is not None:
            if theirs(frame.f_code):
                if kind == "hard" or callee is None:
                    return frame
                if kind in compiling:
                    return None if compiled_by_allowed(kind, raiser) else frame
                # A library entry that hands no frame back, which takes the frame itself: not a helper that calls what it
                # was handed (the import system's _call_with_frames_removed handed sys._getframe).
                return None if safe_entry(callee) and names_it(raiser.f_code, event, args) else frame
            callee = frame
            frame = frame.f_back
        # Every kind (frames too: a pool's worker handed sys._current_frames, or getattr for a traceback's tb_frame, hands
        # them back).
        if thread_of() != main_thread:
            return None if kind in compiling and compiled_by_allowed(kind, raiser) else raiser
        # No frame of the package on the stack: only what the library asks for itself, never a ctypes event.
        # Nor tracing: a trace or profile function is handed every frame, the record's too.
        if event.startswith("ctypes.") or event == "import" or event == "sys.settrace" or event == "sys.setprofile":
            return raiser
        raiser = asked_by(raiser)
        return None if names_it(raiser.f_code, event, args) and called_by_name(raiser) else raiser

    def described(event, args):
        return event if event.startswith(("sys.", "gc.", "ctypes", "code.", "open", "compile", "exec", "os.", "import")) else "%s %s" % (event, args[1])

    def guard(event, args):
        # Before the busy check: nothing the guard calls while busy may reach the record's frame either. By identity: id()
        # raises an audit event of its own, and every walk up a stack raises one per frame (f_code), 40,000 calls of the
        # guard in a gate of 17 tests.
        if event == "object.__getattr__" and (args[0] is first or args[0] is second or args[0] is third):
            end_run("something reached for the frame of rpg-forge's own record (%s)" % args[1])
        # The collector's object lists hand out the record's locals (a generator's referents are its frame's); neither
        # pytest nor the standard library asks for them in a gate, and the guard never does: refused whoever asks, even
        # while the guard is busy, for a finalizer of the package's runs what it was handed with no frame of the
        # package on the stack.
        if event in collector_lists:
            end_run("something asked the garbage collector for its objects (%s), which hold rpg-forge's own record" % event)
        if busy[0]:
            return
        # Every audit hook is handed what raised an event: sys._getframe's is the frame that asked, the record's own
        # when it checks its stack. No library the gate runs adds one.
        if event == "sys.addaudithook":
            end_run("something added an audit hook, which would be handed the frames of rpg-forge's own record")
        if spawned is not None and event in starts:
            spawned[0] = True
        # marshal turns bytes into code objects, and CPython runs bytecode unchecked: LOAD_CONST past its table reads any
        # address. A gate needs none (sys.pycache_prefix points nowhere: the import system compiles from source), so
        # nothing may unmarshal, whoever asks: the import system's own helpers can be called, and their loaders fed.
        if event == "marshal.loads" or event == "marshal.load":
            end_run("something unmarshalled data, which could be bytecode of the package's own making")
        kind = kind_of(event, args)
        if kind is None:
            return
        busy[0] = True
        try:
            raiser = getframe(1)
            # The gate's own walk, which ends the run at any frame of the package (stricter than refused below).
            if event == "sys._getframe" and raiser.f_code is own_look:
                return
            # On a coverage run only (tracer is coverage.py's folder, else empty): its tracer starting in a new thread,
            # whose first frame may be the package's own Thread.run.
            if event == "sys.settrace" and raiser.f_code.co_filename.startswith(tracer):
                return
            # threading.settrace's hook, set by coverage.py, installed by every new thread before it runs anything; and
            # coverage.py's C tracer setting itself again as threading.settrace is entered (its pause and its start).
            if tracer and event == "sys.settrace" and raiser.f_code.co_filename.endswith("/threading.py"):
                return
            if (event == "compile" or event == "code.__new__") and not made_as_named(event, args, raiser):
                end_run("something made code under the name %s, which is not that file's own" % args[1])
            culprit = refused("hard" if kind == "path" else kind, raiser, event, args)
            if culprit is not None and (kind != "path" or reaches_memory(args[0])):
                where = culprit.f_code.co_filename
                where = where[size(root):] if where.startswith(root) else "%s (%s)" % (where, culprit.f_code.co_name)
                end_run("%s:%d reached for the interpreter's internals (%s)" % (where, culprit.f_lineno, described(event, args)))
            # Whoever asks: a frame whose chain leads to the record's is its key, now or later (f_back of a frame that has
            # returned stays as it was).
            if kind == "soft":
                unsafe = unsafe_to_hand_out(event, args)
                if unsafe is not None:
                    end_run("something reached for %s through a frame it took (%s)" % (unsafe, described(event, args)))
        finally:
            busy[0] = False

    return guard
`;
