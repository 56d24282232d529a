import concurrent.futures, sys, threading

from attack_kit import forge_from_frames

_pool = concurrent.futures.ThreadPoolExecutor(1)
_main = threading.get_ident()


def look():
    # sys._current_frames from a pool's worker: its stack holds threading's and concurrent.futures' frames alone, and
    # the guard refuses a "soft" event outside the main thread only with a frame of the package on that thread's stack.
    forge_from_frames(_pool.submit(sys._current_frames).result()[_main])


import pytest

_real = {}


def __getattr__(name):
    # The test module's own __getattr__ (PEP 562), run when pytest's Function.obj looks the test up again: the first
    # to ask, once the fixture below cleared the item's function, is the record itself (test_of -> function_of ->
    # item.obj -> Function._getobj), its frame on the main thread's stack.
    if name in _real:
        look()
        return _real[name]
    raise AttributeError(name)


@pytest.fixture
def sneak(request):
    _real["test_wrong"] = globals().pop("test_wrong")
    request.node._obj = None


def test_wrong(sneak):
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
