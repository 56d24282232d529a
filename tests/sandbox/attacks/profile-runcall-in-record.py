"""
The standard library alone, no "<string>" code, no loader, no finalizer: profile.Profile.runcall (profile.py, whose
code names setprofile) made the test module's __getattr__ (through functools.partial, C), so that it runs inside the
record (pytest's Function.obj looks the test up again) with no frame of the package on the stack. It calls
sys.setprofile with the profiler's dispatcher, which is the package's function: handed the frames of the record's
stack with no audit event.
"""
import functools, profile

import pytest

from attack_kit import forge_from_frames

_real = {}


def dispatcher(frame, event, arg):
    forge_from_frames(frame)


@pytest.fixture
def sneak(request):
    _real["test_also_wrong"] = globals().pop("test_also_wrong")
    prof = profile.Profile()
    prof.dispatcher = dispatcher
    globals()["__getattr__"] = functools.partial(prof.runcall, _real.__getitem__)
    request.node._obj = None


def test_wrong():
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
