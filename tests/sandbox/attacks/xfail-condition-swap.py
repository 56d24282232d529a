"""
An xfail mark added by a fixture with a condition of our own (a non-string condition is bool()'d by pytest's skipping
plugin), and the skipping plugin's stash entry for the item removed, so that skipping's pytest_runtest_call wrapper
evaluates the marks again: after the record's "calling" look, before pytest's pyfunc_call reads item.obj. The
condition's __bool__ swaps item._obj for a function that puts the original back and returns; the record's "ran" look
finds the collected function again and believes the pass.
"""
import pytest
from _pytest.skipping import xfailed_key

from attack_kit import swap_for_returning


class Swap:
    def __init__(self, item):
        self.item, self.done = item, False

    def __bool__(self):
        if not self.done:
            self.done = True
            swap_for_returning(self.item)
        return False


@pytest.fixture
def swap(request):
    item = request.node
    item.add_marker(pytest.mark.xfail(Swap(item), reason="never"))
    del item.stash[xfailed_key]


def test_wrong(swap):
    assert 1 + 1 == 3


def test_also_wrong(swap):
    assert 2 + 2 == 5
