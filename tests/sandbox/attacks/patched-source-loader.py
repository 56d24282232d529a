"""
The import system's own SourceFileLoader (no subclass), its get_data patched on the class for a moment, loads the
standard library's real dataclasses.py under another name and compiles the package's source as that file. One of the
module's functions, made the test module's __getattr__, runs inside the record with no frame of the package on the
stack, and calls sys.settrace, which its code names; the tracer is then handed the record's frames, with no audit event.
"""
import dataclasses, importlib.machinery, importlib.util, os

from attack_kit import SETTRACE_SOURCE, record_looks_up, tracing_lookup

LIBRARY_FILE = os.path.realpath(dataclasses.__file__)

_spec = importlib.util.spec_from_file_location("fake_library", LIBRARY_FILE)
assert type(_spec.loader) is importlib.machinery.SourceFileLoader
_get_data = importlib.machinery.SourceFileLoader.get_data
importlib.machinery.SourceFileLoader.get_data = lambda self, path: SETTRACE_SOURCE if path == LIBRARY_FILE else _get_data(self, path)
try:
    fake = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(fake)
finally:
    importlib.machinery.SourceFileLoader.get_data = _get_data


sneak = record_looks_up(globals(), "test_also_wrong", tracing_lookup(fake))


def test_wrong():
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
