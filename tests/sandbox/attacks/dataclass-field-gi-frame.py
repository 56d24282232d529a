"""
Generator re-parenting with no finalizer: the suspended generator's frame is taken by a dataclass's generated
__init__ (code of "<string>", no file of the package) whose field is named gi_frame, so its code names the attribute,
called through dataclasses.replace (a safe entry). Then the generator is resumed inside the record (the test module's
__getattr__), where its frame's f_back leads to the record's.
"""
import dataclasses, functools

import pytest

from attack_kit import forge_from_frames

store = {}


def body():
    yield
    forge_from_frames(store["frame"])
    yield


gen = body()
next(gen)


@dataclasses.dataclass
class Holder:
    gi_frame: object = dataclasses.field(init=False, default_factory=functools.partial(getattr, gen, "gi_frame"))


# replace() calls Holder(): the generated __init__ calls the default factory, a C callable, itself. An instance made
# without __init__, for a call of it from the package would put a frame of the package right under it.
store["frame"] = dataclasses.replace(object.__new__(Holder)).gi_frame

_real = {}


def __getattr__(name):
    if name in _real:
        if store.get("frame") is not None:
            next(gen)
        return _real[name]
    raise AttributeError(name)


@pytest.fixture
def sneak(request):
    _real["test_also_wrong"] = globals().pop("test_also_wrong")
    request.node._obj = None


def test_wrong():
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
