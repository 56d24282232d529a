import { defineConfig } from "vitest/config";
import SlowestFirst from "./tests/helpers/slowest-first.js";

/**
 * Test files that change what every other file in their process would see: process.env (PATH, a fake python3, the
 * model's variables), the working directory, or a module mock. Each runs in a fresh process of its own. Every other
 * file shares its worker's module cache with the files before it: importing the engine, Octokit and Probot again for
 * each of 147 files took a third of the suite's CPU (issue 16).
 */
const ISOLATED = [
  "tests/action/action-input.test.ts",
  "tests/action/invalid-rpg.test.ts",
  "tests/action/publish-stack.test.ts",
  "tests/cli/bad-input.test.ts",
  "tests/engine/checkpoint-write.test.ts",
  "tests/engine/tdd-loop.test.ts",
  "tests/functional/leaked-secret.test.ts",
  "tests/helpers/github-stand-in-merge.test.ts",
  "tests/sandbox/choose-sandbox.test.ts",
  "tests/sandbox/hostile.test.ts",
  "tests/sandbox/python.test.ts",
  "tests/workflows/release.test.ts",
  "tests/workflows/rpg-generate.test.ts",
  "tests/workspace/git.test.ts",
  "tests/workspace/no-links.test.ts",
  "tests/workspace/stack.test.ts",
];

export default defineConfig({
  test: {
    setupFiles: ["tests/helpers/git-identity.ts"],
    // Functional tests spawn processes and run git and pytest, and mostly wait on them: on two cores, three
    // test files at a time kept the CPU busier (148%) and took 244 s where two took 410 s.
    maxWorkers: 3,
    // The slowest files first (a clean clone has no record of durations for vitest to order by).
    sequence: { sequencer: SlowestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // @actions/workflow-parser imports its JSON schema without `with { type: "json" }`, which Node refuses;
    // inlined, vite's own loader reads it.
    server: { deps: { inline: ["@actions/workflow-parser"] } },
    projects: [
      {
        extends: true,
        test: {
          name: "isolated",
          include: ISOLATED,
        },
      },
      {
        extends: true,
        test: {
          name: "shared",
          include: ["tests/**/*.test.ts"],
          exclude: ISOLATED,
          isolate: false,
          // Fails a file that leaves process.env or the working directory changed, by name.
          setupFiles: ["tests/helpers/no-leaks.ts"],
          // The shipped example, generated once per run (when a test first asks) for the tests that read it: sharedExample().
          // In this project alone: a globalSetup belongs to its project, and another's would generate it again.
          globalSetup: ["tests/helpers/example-setup.ts"],
        },
      },
    ],
  },
});
