"""
A handler of the package's, installed through a second instance of the _signal module (the import system makes one from
the built-in's spec, with no audit event), so that rpg-forge's signal.signal never sees it. A handler is handed the frame
it interrupted, with no audit event either: a timer firing often enough interrupts the record as it runs.
"""
import importlib.machinery, importlib.util, signal

import pytest

from attack_kit import forge_from_frames

fresh = importlib.util.module_from_spec(importlib.machinery.BuiltinImporter.find_spec("_signal"))


def handler(signum, frame):
    forge_from_frames(frame)


fresh.signal(signal.SIGPROF, handler)
signal.setitimer(signal.ITIMER_PROF, 0.00002, 0.00002)


@pytest.mark.parametrize("n", range(400))
def test_many(n):
    assert n < 0


def test_wrong():
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
