import functools, operator

import pytest

from attack_kit import forge_from_frames

kept, frames = [], []
_real = {}


def __getattr__(name):
    # Run by the record itself as it looks the test up (see module-getattr-in-record.py): keeps an exception whose
    # traceback's frame leads, through f_back, to the record's frame.
    if name in _real:
        try:
            raise ValueError
        except ValueError as error:
            kept.append(error)
        return _real[name]
    raise AttributeError(name)


@pytest.fixture
def sneak(request):
    _real["test_wrong"] = globals().pop("test_wrong")
    request.node._obj = None


def test_wrong(sneak):
    assert 1 + 1 == 3


def test_also_wrong(request):
    # The frame read by pytest's own finalizer loop, through C alone: no frame of the package on the stack then.
    request.addfinalizer(functools.partial(frames.extend, map(operator.attrgetter("tb_frame"), [kept[0].__traceback__])))
    assert 2 + 2 == 5


def test_zzz_last():
    forge_from_frames(frames[0])
    assert 3 + 3 == 7
