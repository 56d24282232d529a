"""
Code of ours run by the record itself as it looks the test up (attack_kit.record_looks_up) takes no frame while the
record runs, only keeps an exception raised there: the traceback's frame is its own, whose f_back, fixed once it
returns, leads to the record's frame. Read later through the import system's helper.
"""
import operator
from importlib import _bootstrap

from attack_kit import forge_from_frames, keeping, record_looks_up, running

kept = []


sneak = record_looks_up(globals(), "test_wrong", running(keeping(kept)))


def test_wrong(sneak):
    assert 1 + 1 == 3


def test_also_wrong():
    # Later, the record suspended: the kept frame's chain still leads to the record's frame and its locals.
    frame = _bootstrap._call_with_frames_removed(operator.attrgetter("tb_frame"), kept[0].__traceback__)
    forge_from_frames(frame)
    assert 2 + 2 == 5
