"""
Generator re-parenting, the suspended generator's frame taken by a typing forward reference that pytest's finalizer
loop evaluates (no frame of the package on the stack: the "<string>" code names gi_frame itself), then the generator
resumed inside the record (attack_kit.record_looks_up), where its frame's f_back leads to the record's.
"""
import functools, typing

import pytest

from attack_kit import record_looks_up, running, suspended_walker

store = {}
walker = suspended_walker(lambda: store["frame"])


def carrier(x: "(store.__setitem__('frame', walker.gi_frame), int)[1]"):
    pass


@pytest.fixture
def grab(request):
    request.addfinalizer(functools.partial(typing.get_type_hints, carrier))


sneak = record_looks_up(globals(), "test_also_wrong", running(lambda: "frame" in store and next(walker)))


def test_wrong(grab):
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
