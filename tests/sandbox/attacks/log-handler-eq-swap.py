"""
A handler of ours on the root logger with an __eq__ of its own: pytest's logging plugin wraps each phase's call in
catching_logs, whose root_logger.addHandler(...) asks `handler in root.handlers`, which compares our handler with its
own. That runs inside the logging plugin's pytest_runtest_call wrapper: after the record's "calling" look, before
pytest's pyfunc_call reads item.obj. __eq__ swaps item._obj for a function that puts the original back and returns.
"""
import logging

import pytest

from attack_kit import swap_for_returning


class Meddler(logging.Handler):
    def __init__(self, item):
        super().__init__()
        self.item, self.done, self.seen = item, False, 0

    def emit(self, record):
        pass

    __hash__ = logging.Handler.__hash__

    def __eq__(self, other):
        # Four looks at the setup's end (its two handlers taken off: `in`, then list.remove), then the call's first handler put on.
        self.seen += 1
        if self.seen == 5 and not self.done:
            self.done = True
            swap_for_returning(self.item)
        return self is other


@pytest.fixture
def swap(request):
    logging.getLogger().handlers.insert(0, Meddler(request.node))


def test_wrong(swap):
    assert 1 + 1 == 3


def test_also_wrong(swap):
    assert 2 + 2 == 5
