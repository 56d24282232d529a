# Bytecode of its own, whose LOAD_CONST reads past its table: marshal.loads and FunctionType raise events the guard
# let through (code.__new__ was the only one it refused).
import marshal

from attack_kit import forge_with_reader, memory_reader


def test_wrong(request):
    forge_with_reader(request, memory_reader(marshal.loads))
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
