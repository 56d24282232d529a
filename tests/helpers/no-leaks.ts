import { afterAll, beforeAll } from "vitest";

/*
 * The `shared` project's files run one after another in a worker that keeps its modules (vitest.config.ts): a file
 * that leaves process.env or the working directory changed would change every file after it, by chance of
 * scheduling. This fails the file that does, by name, instead.
 */
let env: Record<string, string | undefined> = {};
let cwd = "";

beforeAll(() => {
  env = { ...process.env };
  cwd = process.cwd();
});

afterAll(() => {
  const names = new Set([...Object.keys(env), ...Object.keys(process.env)]);
  const changed = [...names].filter((name) => process.env[name] !== env[name]).sort();
  const moved = process.cwd() !== cwd ? [`the working directory (${cwd} → ${process.cwd()})`] : [];
  const left = [...changed.map((name) => `$${name}`), ...moved];
  if (left.length > 0)
    throw new Error(
      `this file left ${left.join(", ")} changed for the files after it in its worker: restore it, or list the file in vitest.config.ts's ISOLATED`,
    );
});
