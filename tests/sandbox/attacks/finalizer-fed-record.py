import collections, contextlib, sys, weakref

from attack_kit import the_record

Real = contextlib._GeneratorContextManager


class Swallowing(Real):
    # pytest's capture wraps each test's call in item_capture (a contextlib context manager), inside the verdict
    # plugin's own wrapper: this one swallows the test's AssertionError, so pytest reports the call as passed. The
    # record would still call that pass an error: the test's function did not return ("returned", False).
    def __init__(self, f, a, k):
        self.item = a[2]
        Real.__init__(self, f, a, k)

    def __exit__(self, t, v, tb):
        Real.__exit__(self, t, v, tb)
        if not isinstance(v, AssertionError):
            return False
        # pytest's runner keeps the exception for post-mortem debugging.
        for name in ("last_type", "last_value", "last_traceback"):
            if hasattr(sys, name):
                delattr(sys, name)
        item, record = self.item, the_record(self.item)
        # Called when this context manager goes: when capture's generator (pytest's code) drops it, after this
        # __exit__ returned True and before the verdict plugin's wrapper says "ran". Then only pytest's, pluggy's and
        # contextlib's frames are on the stack: weakref.finalize (the standard library) calls deque, which drives map
        # (C), which feeds the record: the test's call starts again, and this time its function returned.
        weakref.finalize(self, collections.deque, map(record.send, [("calling", item), ("returned", (item, True))]), 0)
        return True


contextlib._GeneratorContextManager = lambda f, a, k: (
    Swallowing if f.__name__ == "item_capture" and a[1:2] == ("call",) and a[2].name == "test_wrong" else Real
)(f, a, k)


def test_wrong():
    assert 1 + 1 == 3
