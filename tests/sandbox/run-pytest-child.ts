// Runs runPytest in a process of its own, so that a test can put secrets into that
// process's initial environment, where CI puts them (and where /proc/<pid>/environ shows
// them), rather than into process.env at run time. Usage: run-pytest-child.ts <cwd> <sandbox> <targets...>
import { runPytest, type SandboxKind } from "../../src/sandbox/pytest.js";

const [cwd, sandbox, ...targets] = process.argv.slice(2);
const result = await runPytest({ cwd: cwd!, sandbox: sandbox as SandboxKind, targets });
process.stdout.write(JSON.stringify({ exitCode: result.exitCode, output: result.output }));
