"""
The guard's functions were defined by the launcher's program at the top of __main__, so their globals are __main__'s
dict: a built-in they look up by name (made_as_named calls type(), leads_to_protected tuple(), file_reads type() and
bytes) is looked up in __main__'s namespace first. A test binds __main__.type to a function of its own and compiles
anything: the guard calls that function from made_as_named while it is busy, when it lets every event through, the
garbage collector's object lists included; gc.get_referents of the record's generator are its frame's locals, the key.
"""
import gc, sys

from attack_kit import forge, the_record

_real_type = type


def test_wrong(request):
    record = the_record(request)
    main = sys.modules["__main__"]

    def type(*args):
        if len(args) == 1 and main.__dict__.get("type") is type:
            del main.type
            # Run by the guard, busy: no event is looked at.
            for value in gc.get_referents(record):
                if _real_type(value) is bytes and len(value) == 32:
                    forge(value)
        return _real_type(*args)

    main.type = type
    compile("1", "anything", "eval")
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
