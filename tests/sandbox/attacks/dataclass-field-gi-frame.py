"""
Generator re-parenting with no finalizer: the suspended generator's frame is taken by a dataclass's generated
__init__ (code of "<string>", no file of the package) whose field is named gi_frame, so its code names the attribute,
called through dataclasses.replace (a safe entry). Then the generator is resumed inside the record
(attack_kit.record_looks_up), where its frame's f_back leads to the record's.
"""
import dataclasses, functools

from attack_kit import record_looks_up, running, suspended_walker

store = {}
walker = suspended_walker(lambda: store["frame"])


@dataclasses.dataclass
class Holder:
    gi_frame: object = dataclasses.field(init=False, default_factory=functools.partial(getattr, walker, "gi_frame"))


# replace() calls Holder(): the generated __init__ calls the default factory, a C callable, itself. An instance made
# without __init__, for a call of it from the package would put a frame of the package right under it.
store["frame"] = dataclasses.replace(object.__new__(Holder)).gi_frame

sneak = record_looks_up(globals(), "test_also_wrong", running(lambda: next(walker)))


def test_wrong():
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
