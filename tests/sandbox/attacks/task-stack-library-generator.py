"""
The same as task-stack-generator-frame.py, with a generator of the standard library's (heapq.merge, which calls the key
function it was given) rather than one of the package's: refusing only generators whose code is the package's is no
fix. Resumed inside the record (attack_kit.record_looks_up), it calls the key function, whose frame's f_back leads to
the record's.
"""
import heapq

from attack_kit import forge_from_frames, record_looks_up, running, task_stack_of

store = {}


def key(value):
    # Called by heapq.merge's generator, resumed from inside the record: its frame's f_back leads to the record.
    if store.get("frames"):
        forge_from_frames(store["frames"][0][0])
    return value


merging = heapq.merge([1, 2, 3], [4, 5, 6], key=key)
next(merging)
importer, grab = task_stack_of(merging, store)
sneak = record_looks_up(globals(), "test_also_wrong", running(lambda: store.get("frames") and next(merging)))


def test_first(importer):
    pass


def test_wrong(grab):
    assert 1 + 1 == 3


def test_also_wrong(sneak):
    assert 2 + 2 == 5
