# A sourceless loader of the import system, fed a file not named .pyc, unmarshals bytecode of its own.
import importlib._bootstrap_external as _bx
import importlib.util, tempfile

from attack_kit import forge_with_reader, memory_reader

_n = 0


def through_a_loader(data):
    global _n
    _n += 1
    path = tempfile.gettempdir() + "/rt4mod%d.dat" % _n  # not '.pyc': foreign_bytecode() ignores it
    with open(path, "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + data)
    made = _bx.SourcelessFileLoader("rt4mod%d" % _n, path).get_code("rt4mod%d" % _n)
    open(__file__).close()  # last opened file of the thread: not a .pyc
    return made


def test_wrong(request):
    forge_with_reader(request, memory_reader(through_a_loader))
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
