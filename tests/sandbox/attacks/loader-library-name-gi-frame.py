"""
A loader (importlib.abc.SourceLoader) reporting the standard library's dataclasses.py as its module's file: the
package calls that module's function directly, a "safe entry" (dataclasses.py, "*") whose code names gi_frame, and
gets its suspended generator's frame; resumed inside the record (attack_kit.record_looks_up), the frame's f_back
leads to the record's.
"""
import dataclasses, os

from attack_kit import compiled_as, record_looks_up, running, suspended_walker

fake = compiled_as(os.path.realpath(dataclasses.__file__), b"def frame_of(generator):\n    return generator.gi_frame\n")
store = {}
walker = suspended_walker(lambda: store["frame"])
store["frame"] = fake.frame_of(walker)

sneak = record_looks_up(globals(), "test_also_wrong", running(lambda: next(walker)))


def test_wrong():
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
