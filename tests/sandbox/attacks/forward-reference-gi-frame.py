"""
Generator re-parenting, the suspended generator's frame taken by a typing forward reference that pytest's finalizer
loop evaluates (no frame of the package on the stack: the "<string>" code names gi_frame itself), then the generator
resumed from inside the record (the test module's __getattr__), where its frame's f_back leads to the record's.
"""
import functools, typing

import pytest

from attack_kit import forge_from_frames

store = {}


def body():
    yield
    # Running now, resumed from inside the record: f_back is whoever called next(), and on up to the record.
    forge_from_frames(store["frame"])
    yield


gen = body()
next(gen)


def carrier(x: "(store.__setitem__('frame', gen.gi_frame), int)[1]"):
    pass


@pytest.fixture
def grab(request):
    request.addfinalizer(functools.partial(typing.get_type_hints, carrier))


_real = {}


def __getattr__(name):
    if name in _real:
        if "frame" in store:
            next(gen)
        return _real[name]
    raise AttributeError(name)


@pytest.fixture
def sneak(request):
    _real["test_also_wrong"] = globals().pop("test_also_wrong")
    request.node._obj = None


def test_wrong(grab):
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
