import { describe, expect, it } from "vitest";
import { scrubbedEnv } from "../../src/sandbox/env.js";

describe("scrubbedEnv", () => {
  const parent = {
    PATH: "/usr/local/bin:/usr/bin",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    LC_CTYPE: "C.UTF-8",
    TZ: "UTC",
    HOME: "/home/runner",
    TMPDIR: "/var/tmp",
    GITHUB_TOKEN: "ghs_secret",
    OPENAI_API_KEY: "sk-secret",
    MY_SECRET: "s3cret",
    AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
    ACTIONS_RUNTIME_TOKEN: "runtime-secret",
    ACTIONS_ID_TOKEN_REQUEST_URL: "https://token.example",
    NODE_OPTIONS: "--require /evil.js",
    PYTHONPATH: "/somewhere",
    LD_PRELOAD: "/evil.so",
    FORCE_COLOR: "1",
  };

  it("passes exactly the allowlisted variables and sets the sandbox's own", () => {
    expect(scrubbedEnv(parent, "/sandbox/home", "/sandbox/tmp")).toEqual({
      PATH: "/usr/local/bin:/usr/bin",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      LC_CTYPE: "C.UTF-8",
      TZ: "UTC",
      HOME: "/sandbox/home",
      TMPDIR: "/sandbox/tmp",
      PYTHONDONTWRITEBYTECODE: "1",
      PYTHONHASHSEED: "0",
      PYTHONUTF8: "1",
    });
  });

  it("leaves out allowlisted variables the parent does not have instead of setting them empty", () => {
    const env = scrubbedEnv({ PATH: "/usr/bin" }, "/h", "/t");
    expect(Object.keys(env).sort()).toEqual(["HOME", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONUTF8", "TMPDIR"]);
  });

  it("never lets a secret value through, whatever the variable is called", () => {
    const values = Object.values(scrubbedEnv(parent, "/h", "/t"));
    for (const secret of ["ghs_secret", "sk-secret", "s3cret", "AKIAEXAMPLE", "runtime-secret", "/evil.js", "/evil.so"]) {
      expect(values).not.toContain(secret);
    }
  });
});
