"""
A generator's frame, taken while it ran, through pytest's own traceback objects driven by C alone from pytest's
finalizer loop (no frame of the package on the stack); then the generator resumed inside the record
(attack_kit.record_looks_up), where that frame's f_back, no longer None, leads to the record's.
"""
import functools, operator

import pytest
from _pytest._code.code import TracebackEntry

from attack_kit import forge_from_frames, record_looks_up, running

store = {"frame": []}


def body():
    try:
        raise ValueError
    except ValueError as error:
        store["tb"] = error.__traceback__  # its frame is this generator's
    yield
    # Running now, resumed from inside the record: f_back is whoever called next(), and on up to the record.
    forge_from_frames(store["frame"][0].raw)
    yield


gen = body()
next(gen)


@pytest.fixture
def grab(request):
    request.addfinalizer(functools.partial(store["frame"].extend, map(operator.attrgetter("frame"), [TracebackEntry(store["tb"])])))


sneak = record_looks_up(globals(), "test_also_wrong", running(lambda: store["frame"] and next(gen)))


def test_wrong(grab):
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
