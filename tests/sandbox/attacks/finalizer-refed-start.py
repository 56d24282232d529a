"""
The record's baseline of pytest's machinery ("start") taken again, by the Verdict's own pytest_collection called from
pytest's finalizer loop (a C partial, no frame of the package on the stack), after a plugin of ours was registered:
from then on the plugin is part of the machinery the record believes. The plugin swaps each test's function for one
that returns around pytest_pyfunc_call and puts it back before the record looks again. pytest's own session then runs
to its end: its own exit status (0), its own JUnit report.
"""
import functools

import pytest

from attack_kit import the_verdict


class Swap:
    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        original = pyfuncitem.__dict__["_obj"]
        pyfuncitem._obj = lambda **kwargs: None
        try:
            return (yield)
        finally:
            pyfuncitem._obj = original


@pytest.fixture
def forger(request):
    manager = request.config.pluginmanager
    verdict = the_verdict(request.config)
    # Finalizers run last in, first out: the plugin is registered, then the record takes its baseline again.
    request.addfinalizer(functools.partial(verdict.pytest_collection, request.session))
    request.addfinalizer(functools.partial(manager.register, Swap(), "swap"))


def test_wrong(forger):
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
