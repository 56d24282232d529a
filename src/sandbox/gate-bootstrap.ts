/** File descriptors the bootstrap is handed: the key to read once, and the pipe for the signed report. */
export const KEY_FD = 4;
export const REPORT_FD = 5;

export interface BootstrapSettings {
  /** Where the timeout plugin's source is (loaded by path, never by module name). */
  timeoutPluginPath: string;
  /** Where pytest's own --junitxml report goes; read back and signed at the end of the session. */
  junitPath: string;
  /** (resource name, value) pairs set with setrlimit before anything else. */
  limits: [string, number][];
  /** Arguments for pytest.main. */
  pytestArgs: string[];
}

/**
 * The interpreter the gate runs, `python -s bootstrap.py` with PYTHONSAFEPATH set. In
 * this order, before any generated code can run:
 * 1. sets the resource limits (hard and soft, so they cannot be raised again);
 * 2. reads the run's key from KEY_FD and closes it: the only copy left is in this
 *    module's memory, which the reviewed code has no way to reach (no `sys.modules`,
 *    `gc`, frames or `_pytest`: docs/review-rules.md);
 * 3. takes its own references to the functions it signs and writes with (posix,
 *    _hashlib), so that code patching `os.write` or `hmac` later changes nothing here;
 * 4. loads rpg-forge's plugins from their paths (a module in the package named like
 *    them cannot stand in for them) and runs pytest.
 * Its verdict plugin records every test's outcome itself, from the reports pytest hands
 * to every plugin, and at the very end of the session writes them with the exit status
 * and pytest's JUnit report to REPORT_FD, signed with HMAC-SHA256. Code that exits
 * early, kills the interpreter, or writes its own report leaves no valid signature;
 * code that overwrites the JUnit file changes nothing, since the copy that counts is the
 * one read after pytest wrote it.
 */
const SOURCE = `"""Written by rpg-forge: runs pytest and signs what it saw."""
import posix as _posix
import resource as _resource
import sys as _sys

for _name, _value in __LIMITS__:
    _which = getattr(_resource, _name)
    _hard = _resource.getrlimit(_which)[1]
    if _hard != _resource.RLIM_INFINITY:
        _value = min(_value, _hard)
    _resource.setrlimit(_which, (_value, _value))

_key = b""
while True:
    _chunk = _posix.read(${KEY_FD}, 256)
    if not _chunk:
        break
    _key += _chunk
_posix.close(${KEY_FD})
# Processes the tests start must not inherit the report's pipe.
_posix.set_inheritable(${REPORT_FD}, False)

import _hashlib
import importlib.util as _util
import json as _json

import pytest as _pytest

_sign = _hashlib.hmac_digest
_write = _posix.write
_open = _posix.open
_read = _posix.read
_close = _posix.close
_encode = _json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
_JUNIT = __JUNIT__
_MAX_JUNIT = 16 * 1024 * 1024


def _load(name, path):
    spec = _util.spec_from_file_location(name, path)
    module = _util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_junit():
    try:
        fd = _open(_JUNIT, _posix.O_RDONLY | _posix.O_NOFOLLOW)
    except OSError:
        return None
    data = b""
    try:
        while len(data) < _MAX_JUNIT:
            chunk = _read(fd, 1 << 20)
            if not chunk:
                break
            data += chunk
    finally:
        _close(fd)
    return data.decode("utf-8", "replace")


class _Verdict:
    def __init__(self):
        self.tests = {}
        self.collect_errors = []

    @_pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        yield
        payload = _encode(
            {
                "exitstatus": int(exitstatus),
                "tests": self.tests,
                "collect_errors": self.collect_errors,
                "junit": _read_junit(),
            }
        ).encode("ascii")
        data = _sign(_key, payload, "sha256").hex().encode("ascii") + b"\\n" + payload
        while data:
            data = data[_write(${REPORT_FD}, data):]
        _close(${REPORT_FD})

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(report.nodeid)

    def pytest_runtest_logreport(self, report):
        outcome = self.tests.get(report.nodeid)
        if hasattr(report, "wasxfail") or report.skipped:
            self.tests[report.nodeid] = "skipped"
        elif report.failed:
            self.tests[report.nodeid] = "failed" if report.when == "call" else "error"
        elif report.when == "call" and outcome is None:
            self.tests[report.nodeid] = "passed"


_timeout = _load("rpg_forge_timeout", __TIMEOUT_PLUGIN__)
_sys.exit(_pytest.main(__ARGS__, plugins=[_timeout, _Verdict()]))
`;
/** Python source of the bootstrap for one run. Values go in as JSON, which is valid Python for strings, numbers and lists. */
export function gateBootstrapSource(settings: BootstrapSettings): string {
  return SOURCE.replace("__LIMITS__", JSON.stringify(settings.limits))
    .replace("__JUNIT__", JSON.stringify(settings.junitPath))
    .replace("__TIMEOUT_PLUGIN__", JSON.stringify(settings.timeoutPluginPath))
    .replace("__ARGS__", JSON.stringify(settings.pytestArgs));
}
