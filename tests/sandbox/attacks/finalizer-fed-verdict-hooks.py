"""
The Verdict plugin's own hook methods, called by pytest's finalizer loop (C partials, no frame of the package on the
stack) with objects of our choosing: the record checks that its feeder's code is one of the Verdict's and that no
frame of the package is on the stack, not that pytest is running that hook for that item at that moment.
"""
import functools, os

import pytest

from attack_kit import PassedReport, the_verdict


@pytest.fixture
def forger(request):
    verdict = the_verdict(request.config)
    session = request.session
    steps = []
    for item in session.items:
        if item.name not in ("test_wrong", "test_also_wrong"):
            continue
        original = item._obj

        def passing(item=item, original=original):
            item._obj = original  # put back before the record looks at it again ("ran")

        wrapper = verdict.pytest_runtest_call(item)  # a generator: "calling" on its first step, "ran" on its second
        steps += [
            functools.partial(next, wrapper, None),
            functools.partial(setattr, item, "_obj", passing),
            functools.partial(verdict.pytest_pyfunc_call, item),
            functools.partial(next, wrapper, None),
            functools.partial(verdict.pytest_runtest_logreport, PassedReport(item.nodeid)),
        ]
    finishing = verdict.pytest_sessionfinish(session, 0)
    steps += [functools.partial(next, finishing, None), functools.partial(next, finishing, None), functools.partial(os._exit, 1)]  # the status the record signs: a test failed before
    for step in reversed(steps):  # finalizers run last in, first out
        request.addfinalizer(step)


def test_wrong(forger):
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
