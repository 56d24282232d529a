import { spawnSync } from "node:child_process";
import { delimiter, join } from "node:path";
import { suiteEnv } from "./package-suite.js";

/**
 * The first python3 on PATH that can build a package offline: setuptools and wheel in its
 * own site, the one a `--system-site-packages` venv sees (not the user site, which a venv
 * leaves out). Debian's python3 with python3-setuptools and python3-wheel is one.
 */
export function packagingPython(): string {
  const candidates = (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "python3"));
  const found = candidates.find((python) => spawnSync(python, ["-s", "-c", "import setuptools, venv, wheel"]).status === 0);
  if (!found)
    throw new Error("no python3 on PATH has setuptools and wheel outside the user site (apt-get install python3-setuptools python3-wheel)");
  return found;
}

export interface Venv {
  python: string;
  /** pip install -e, offline; pip's stderr when it fails. */
  install(packageDir: string): { status: number | null; stderr: string };
  /** The package's test suite, run with the venv's python from outside the package. */
  pytest(packageDir: string, cwd: string): { status: number | null; stdout: string };
}

/** A virtual environment that sees the system's pytest, setuptools and wheel, as a user's CI would have them. */
export function createVenv(dir: string): Venv {
  const base = packagingPython();
  // ensurepip copies pip into every venv (seconds of CPU each); the system's pip, when there is one, installs into the
  // venv it runs under just as well.
  const systemPip = spawnSync(base, ["-s", "-c", "import pip"]).status === 0;
  const made = spawnSync(base, ["-m", "venv", "--system-site-packages", ...(systemPip ? ["--without-pip"] : []), dir], {
    encoding: "utf8",
  });
  if (made.status !== 0) throw new Error(`python3 -m venv failed: ${made.stderr}`);
  const python = join(dir, "bin/python");
  return {
    python,
    install: (packageDir) => {
      const pip = spawnSync(python, ["-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index", "-e", packageDir], {
        encoding: "utf8",
      });
      return { status: pip.status, stderr: pip.stderr };
    },
    pytest: (packageDir, cwd) => {
      const run = spawnSync(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", packageDir], {
        cwd,
        encoding: "utf8",
        env: suiteEnv(),
      });
      return { status: run.status, stdout: run.stdout };
    },
  };
}
