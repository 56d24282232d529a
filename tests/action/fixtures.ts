import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { webhookExample } from "../helpers/webhook-examples.js";

export const EXAMPLE = fileURLToPath(new URL("../../examples/statkit/", import.meta.url));
export const TOKEN = "ghs_test_token_0123456789";

export const git = (dir: string, ...args: string[]): string => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();

/** GitHub's own example payload of an event, pointed at our repository. */
export function payload(event: string, action?: string): Record<string, unknown> {
  const copy = webhookExample(event, action);
  Object.assign(copy.repository as object, {
    name: "statkit",
    full_name: "octo/statkit",
    default_branch: "main",
    owner: { login: "octo" },
  });
  return copy;
}

/** A bare repository whose main holds the shipped example's rpg.json and a README of the user's. */
export function seedRemote(root: string): string {
  const remote = join(root, "remote.git");
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch", "main", remote]);
  const seed = join(root, "seed");
  execFileSync("git", ["clone", "--quiet", remote, seed], { stdio: "ignore" });
  git(seed, "checkout", "--quiet", "-B", "main");
  copyFileSync(join(EXAMPLE, "rpg.json"), join(seed, "rpg.json"));
  writeFileSync(join(seed, "README.md"), "# statkit\n\nOur plan, in rpg.json.\n");
  // These tests are about branches, PRs and merges; the measures after a pass and the debug loop are the engine tests'
  // (the failing node fails after one fix instead of eight, as it would after eight). The settings also show that the
  // repository's configuration reaches the engine: no checkpoint here holds a test strength.
  mkdirSync(join(seed, ".github"), { recursive: true });
  writeFileSync(join(seed, ".github", "rpg-forge.yml"), "mutants: 0\nmax-iterations: 1\n");
  git(seed, "add", ".");
  git(seed, "commit", "--quiet", "-m", "plan statkit");
  git(seed, "push", "--quiet", "origin", "main");
  return remote;
}

/** A fresh checkout of main, as actions/checkout makes one for each job. */
export function checkout(root: string, remote: string, name: string): string {
  const dir = join(root, name);
  execFileSync("git", ["clone", "--quiet", "--branch", "main", remote, dir]);
  return dir;
}

/** Every branch and tag of the remote, with the commit it points at. */
export function remoteRefs(remote: string): Record<string, string> {
  return Object.fromEntries(
    git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags")
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(" ")),
  ) as Record<string, string>;
}
