"""
A unittest.TestCase of the package's own with a run() of its own that files a success and never calls the test. The
record believes a unittest test's pass when none of its failures reached pytest's item (_addexcinfo): it checks the
item's class, its function and unittest's own modules, not the test case class's methods, which are the package's.
"""
import unittest


class Wrong(unittest.TestCase):
    def run(self, result=None):
        result.startTest(self)
        result.addSuccess(self)
        result.stopTest(self)
        return result

    def test_wrong(self):
        assert 1 + 1 == 3

    def test_also_wrong(self):
        assert 2 + 2 == 5
