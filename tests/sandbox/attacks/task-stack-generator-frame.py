"""
A suspended generator's frame, taken through asyncio's pure-Python Task.get_stack (attack_kit.task_stack_of), driven
by C alone from pytest's finalizer loop: no frame of the package on the stack. Then the generator is resumed inside the
record (attack_kit.record_looks_up), where that frame's f_back leads to the record's.
"""
from attack_kit import record_looks_up, running, suspended_walker, task_stack_of

store = {}
walker = suspended_walker(lambda: store["frames"][0][0])
importer, grab = task_stack_of(walker, store)
sneak = record_looks_up(globals(), "test_also_wrong", running(lambda: store.get("frames") and next(walker)))


def test_first(importer):
    pass


def test_wrong(grab):
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
