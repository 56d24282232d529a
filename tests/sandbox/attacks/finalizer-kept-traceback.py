"""
The traceback kept as in kept-traceback-of-record.py, its frame read by pytest's own finalizer loop through C alone:
no frame of the package on the stack then.
"""
import functools, operator

from attack_kit import forge_from_frames, keeping, record_looks_up, running

kept, frames = [], []


sneak = record_looks_up(globals(), "test_wrong", running(keeping(kept)))


def test_wrong(sneak):
    assert 1 + 1 == 3


def test_also_wrong(request):
    request.addfinalizer(functools.partial(frames.extend, map(operator.attrgetter("tb_frame"), [kept[0].__traceback__])))
    assert 2 + 2 == 5


def test_zzz_last():
    forge_from_frames(frames[0])
    assert 3 + 3 == 7
