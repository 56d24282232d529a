import { execFileSync } from "node:child_process";
import { describe, it } from "vitest";
import { gateLauncherProgram } from "../../src/sandbox/gate-bootstrap.js";
import { EXCLUDED_PLUGIN_ARGS } from "../../src/sandbox/gate-launcher-source.js";
import { runPytest } from "../../src/sandbox/pytest.js";
import { findPython } from "../../src/sandbox/python.js";
import { makePackage, SANDBOXES } from "./package-dir.js";

// Test ids are the package's text: a parametrized test's id carries its parameter.
const HOSTILE_IDS = ["tests/test_p.py::test_p[$']", "tests/test_p.py::test_p[$`]", "tests/test_p.py::test_p[$&__COVER__]"];

describe.concurrent.each(SANDBOXES)("a test id with replacement patterns in the %s sandbox", (sandbox) => {
  it("reaches pytest as it was given", async ({ expect, onTestFinished }) => {
    const cwd = makePackage(
      { onTestFinished },
      {
        "tests/test_p.py": 'import pytest\n\n\n@pytest.mark.parametrize("p", ["$\'", "$`", "$&__COVER__"])\ndef test_p(p):\n    assert p\n',
      },
    );
    const result = await runPytest({ cwd, targets: HOSTILE_IDS, sandbox });
    expect(result.report.authentic && [...result.report.outcomes].sort()).toEqual(HOSTILE_IDS.map((id) => [id, "passed"]).sort());
  });
});

// The gate's functions are __main__'s, whose globals the package's code can write: a name bound there, or a key whose
// hash is a built-in's name and whose __eq__ is the package's, is looked up before the built-ins. The guard looked up
// `type` that way while busy, and a security review ran its own code there. Every function that can run once the
// package's code has (the nested functions of the gate's set-up functions, and the session) names no global.
const SET_UP = [
  "memory_paths",
  "theirs_for",
  "guard_for",
  "runner_checks",
  "coverage_of",
  "_gate",
  "_ending",
  "_hook_parameters",
  "_made_configuration",
];
const GLOBALS_SEEN = String.raw`
import dis, json, sys, types
program = compile(sys.stdin.read(), "<rpg-forge launcher>", "exec")
set_up = set(json.loads(sys.argv[1]))
found = {}
def walk(code, path, nested):
    names = sorted({i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"})
    if names and nested:
        found[path] = names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            walk(const, path + "." + const.co_name, True)
tops = [const for const in program.co_consts if isinstance(const, types.CodeType)]
for code in tops:
    if code.co_name in set_up or code.co_name == "_session":
        walk(code, code.co_name, code.co_name == "_session")
print(json.dumps({"found": found, "tops": sorted(code.co_name for code in tops)}))
`;

describe("the gate's program", () => {
  it("looks up no global name in code that runs after the package's", async ({ expect }) => {
    const python = await findPython();
    const out = execFileSync(python, ["-c", GLOBALS_SEEN, JSON.stringify(SET_UP)], { input: gateLauncherProgram(), encoding: "utf8" });
    const { found, tops } = JSON.parse(out) as { found: Record<string, string[]>; tops: string[] };
    expect(tops).toEqual(expect.arrayContaining([...SET_UP, "_session"]));
    expect(found).toEqual({});
  });
});

// The gate's end stays on the stack (in _session's frame) while the package's code runs, and a closure's cells are read
// live: made inside _gate, it shared _gate's cells, end_run's way out among them, and rewriting one through it would have
// turned every end of the run into a message (a review of 18a1c01). Its cells are its own, the arguments of _ending.
const ENDING_CELLS = String.raw`
import json, sys, types
program = compile(sys.stdin.read(), "<rpg-forge launcher>", "exec")
tops = {const.co_name: const for const in program.co_consts if isinstance(const, types.CodeType)}
nested = lambda code: [const for const in code.co_consts if isinstance(const, types.CodeType)]
ending = tops["_ending"]
leave = next(code for code in nested(ending) if code.co_name == "leave")
print(json.dumps({
    "gate_nests": sorted(code.co_name for code in nested(tops["_gate"])),
    "leave_cells": sorted(leave.co_freevars),
    "ending_arguments": sorted(ending.co_varnames[: ending.co_argcount]),
}))
`;

describe("the gate's end", () => {
  it("closes over nothing but the arguments it was made with", async ({ expect }) => {
    const python = await findPython();
    const out = execFileSync(python, ["-c", ENDING_CELLS], { input: gateLauncherProgram(), encoding: "utf8" });
    const { gate_nests, leave_cells, ending_arguments } = JSON.parse(out) as {
      gate_nests: string[];
      leave_cells: string[];
      ending_arguments: string[];
    };
    expect(gate_nests).not.toContain("leave");
    expect(leave_cells.length).toBeGreaterThan(0);
    expect(ending_arguments).toEqual(expect.arrayContaining(leave_cells));
  });
});

// The launcher's configuration for a gate's first session (_made_configuration), on pytest's own _pytest.config: a
// configuration made in "/" as the launcher makes it, then a session's call in a folder of its own, with pytest's
// get_config counted.
const MADE_CONFIGURATION = String.raw`
import json, os, pathlib, sys, tempfile, types
import _pytest.config

program = compile(sys.stdin.read(), "<rpg-forge launcher>", "exec")
tops = {const.co_name: const for const in program.co_consts if isinstance(const, types.CodeType)}
factory = types.FunctionType(tops["_made_configuration"], {})
excluded = json.loads(sys.argv[1])

def session(args, environ=None):
    calls = []
    def pytests_own(args=None, plugins=None):
        calls.append(list(args))
        return _pytest.config.get_config(args, plugins)
    module = types.SimpleNamespace(Config=_pytest.config.Config, get_config=pytests_own)
    os.chdir("/")
    made = pytests_own(list(excluded))
    module.get_config = factory(module, made, excluded, environ or {}, pathlib.Path, type, str, list, sorted, Exception)
    os.chdir(tempfile.mkdtemp())
    config = module.get_config(args, ["plugin"])
    params = config.invocation_params
    return {
        "calls": calls,
        "taken": config is made,
        "params": [list(params.args), list(params.plugins), str(params.dir) == os.getcwd()],
        "restored": module.get_config is pytests_own,
        "cacheprovider": config.pluginmanager.get_plugin("cacheprovider") is not None,
    }

print(json.dumps({
    "wired": "_made_configuration" in tops["_launcher"].co_names,
    "sessions": [
        session(["t.py", "-q", "-p", "no:cacheprovider"]),
        session(["t.py", "-pno:cacheprovider", "-p", "hypothesis"]),
        session(["t.py", "-p", "no:cacheprovider", "-p", "no:doctest"]),
        session(["t.py", "-p", "no:cacheprovider"], {"PYTEST_DEBUG": "1"}),
    ],
}))
`;

describe("the launcher's configuration for a gate", () => {
  it("goes to a first session that excludes the same plugins, with its arguments and folder, and pytest's get_config is back", async ({
    expect,
  }) => {
    const python = await findPython();
    const launchers = [...EXCLUDED_PLUGIN_ARGS];
    const out = execFileSync(python, ["-c", MADE_CONFIGURATION, JSON.stringify(launchers)], {
      input: gateLauncherProgram(),
      encoding: "utf8",
    });
    const { wired, sessions } = JSON.parse(out) as { wired: boolean; sessions: Record<string, unknown>[] };
    const [same, spelledOtherwise, otherExclusions, traced] = sessions;
    expect(wired).toBe(true);
    // Made once, in "/"; the session takes it with its own arguments, plugins and folder. Any other exclusion, or
    // pytest's trace asked for: a configuration made as pytest makes it.
    const session = (args: string[], taken: boolean) => ({
      calls: taken ? [launchers] : [launchers, args],
      taken,
      params: [args, ["plugin"], true],
      restored: true,
      cacheprovider: false,
    });
    expect(same).toEqual(session(["t.py", "-q", "-p", "no:cacheprovider"], true));
    expect(spelledOtherwise).toEqual(session(["t.py", "-pno:cacheprovider", "-p", "hypothesis"], true));
    expect(otherExclusions).toEqual(session(["t.py", "-p", "no:cacheprovider", "-p", "no:doctest"], false));
    expect(traced).toEqual(session(["t.py", "-p", "no:cacheprovider"], false));
  });
});
