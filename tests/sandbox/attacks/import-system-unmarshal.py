# The import system's own helper, called to unmarshal bytecode of its own: marshal.loads raised by <frozen importlib>.
import importlib._bootstrap_external as _bx

from attack_kit import forge_with_reader, memory_reader


def test_wrong(request):
    forge_with_reader(request, memory_reader(_bx._compile_bytecode))
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
