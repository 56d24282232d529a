import concurrent.futures, sys, threading

from attack_kit import HookReading, forge_from_frames

_pool = concurrent.futures.ThreadPoolExecutor(1)
_main = threading.get_ident()


def look():
    # sys._current_frames from a pool's worker: its stack holds threading's and concurrent.futures' frames alone, and
    # the guard refuses a "soft" event outside the main thread only with a frame of the package on that thread's stack.
    frame = _pool.submit(sys._current_frames).result()[_main]
    forge_from_frames(frame)


def test_wrong(request):
    request.config.pluginmanager = HookReading(request.config.pluginmanager, look)
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
