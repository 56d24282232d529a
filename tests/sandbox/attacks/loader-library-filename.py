"""
A loader of the import system (importlib.abc.SourceLoader) that reports the standard library's dataclasses.py as the
file of a module of the package's own making: the import system compiles and runs it (allowed for importlib), and its
functions' frames are then the library's to the guard. One of them, made the test module's __getattr__, runs inside
the record with no frame of the package on the stack, and calls sys.settrace, which its code names; the tracer is then
handed the record's frames, with no audit event.
"""
import dataclasses, os

from attack_kit import SETTRACE_SOURCE, compiled_as, record_looks_up, tracing_lookup


fake = compiled_as(os.path.realpath(dataclasses.__file__), SETTRACE_SOURCE)


sneak = record_looks_up(globals(), "test_also_wrong", tracing_lookup(fake))


def test_wrong():
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
