import concurrent.futures, hashlib, hmac, json, os, sys, threading

_pool = concurrent.futures.ThreadPoolExecutor(1)
_main = threading.get_ident()


def forge(key):
    tests = {"tests/test_attack.py::test_wrong": "passed", "tests/test_attack.py::test_also_wrong": "passed"}
    payload = json.dumps({"exitstatus": 0, "tests": tests, "collect_errors": [], "junit": None}).encode()
    os.write(5, hmac.new(key, payload, hashlib.sha256).hexdigest().encode() + b"\n" + payload)
    os._exit(0)


def look():
    # sys._current_frames from a pool's worker: its stack holds threading's and concurrent.futures' frames alone, and
    # the guard refuses a "soft" event outside the main thread only with a frame of the package on that thread's stack.
    frame = _pool.submit(sys._current_frames).result()[_main]
    while frame is not None:
        names = frame.f_locals
        if "key" in names and "digest" in names:
            forge(names["key"])
        frame = frame.f_back


class Manager:
    """config.pluginmanager, as the record reads it in its check of pytest's hooks: the real one, but for .hook."""

    def __init__(self, real):
        object.__setattr__(self, "_real", real)

    @property
    def hook(self):
        look()  # run by the record itself, its frame (and the key) on the main thread's stack
        return self._real.hook

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __setattr__(self, name, value):
        setattr(self._real, name, value)


def test_wrong(request):
    request.config.pluginmanager = Manager(request.config.pluginmanager)
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
