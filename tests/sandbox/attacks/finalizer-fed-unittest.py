"""
finalizer-fed-verdict-hooks.py for unittest tests: the record believes a unittest item's pass when no failure was filed
between its "calling" and its "ran", so the Verdict's runtest_call wrapper, stepped twice by pytest's finalizer loop,
passes it without running anything.
"""
import functools, os, unittest

import pytest

from attack_kit import PassedReport, the_verdict


@pytest.fixture
def forger(request):
    verdict = the_verdict(request.config)
    steps = []
    for item in request.session.items:
        if item.name in ("test_wrong", "test_also_wrong"):
            wrapper = verdict.pytest_runtest_call(item)
            steps += [functools.partial(next, wrapper, None), functools.partial(next, wrapper, None),
                      functools.partial(verdict.pytest_runtest_logreport, PassedReport(item.nodeid))]
    finishing = verdict.pytest_sessionfinish(request.session, 0)
    steps += [functools.partial(next, finishing, None), functools.partial(next, finishing, None), functools.partial(os._exit, 1)]  # the status the record signs: a test failed before
    for step in reversed(steps):
        request.addfinalizer(step)


def test_first(forger):
    # Failing too: what it leaves runs at its teardown, before the unittest tests run.
    assert 0 == 1


class TestCase(unittest.TestCase):
    def test_wrong(self):
        self.assertEqual(1 + 1, 3)

    def test_also_wrong(self):
        self.assertEqual(2 + 2, 5)
