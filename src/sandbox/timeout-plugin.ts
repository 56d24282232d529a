/** Name of the JUnit <property> that carries each test's exact pytest node id. */
export const NODE_ID_PROPERTY = "rpg_forge_nodeid";

// pytest has no per-test time limit and pytest-timeout may not be installed (PyPI can be
// out of reach), so we ship the few lines we need. SIGALRM interrupts both busy loops
// (Python checks for signals between bytecodes) and blocking calls (sleep, socket reads),
// and raising pytest's Failed turns the hang into an ordinary test failure with a
// traceback that shows where the test was stuck. Each phase (fixture setup, the test,
// teardown) is armed separately so that the exception is always raised inside the phase
// pytest is reporting on, never in between. Code that ignores or replaces SIGALRM, or
// blocks inside C, defeats this: the hard limit enforced from Node is the backstop.
// Old-style hookwrappers and pytest_itemcollected keep this working on old pytest too.
const SOURCE = `"""Written by rpg-forge: fails a test that runs longer than its time limit."""
import contextlib
import signal

import pytest

LIMIT_S = __LIMIT_S__


def _alarm_handler(phase):
    def on_alarm(signum, frame):
        __tracebackhide__ = True
        where = "" if phase == "call" else " (in %s)" % phase
        pytest.fail("timed out after %g s%s" % (LIMIT_S, where))

    return on_alarm


@contextlib.contextmanager
def _deadline(phase):
    if not hasattr(signal, "setitimer"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _alarm_handler(phase))
    signal.setitimer(signal.ITIMER_REAL, LIMIT_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)


def pytest_itemcollected(item):
    # xunit2 JUnit has no file attribute, and classname is ambiguous once classes nest.
    item.user_properties.append(("__NODE_ID_PROPERTY__", item.nodeid))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    with _deadline("setup"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    with _deadline("call"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    with _deadline("teardown"):
        yield
`;

/** Python source of the timeout plugin for a limit of `limitMs` per test phase. */
export function timeoutPluginSource(limitMs: number): string {
  return SOURCE.replace("__LIMIT_S__", String(limitMs / 1000)).replace("__NODE_ID_PROPERTY__", NODE_ID_PROPERTY);
}
