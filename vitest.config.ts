import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    setupFiles: ["tests/helpers/git-identity.ts"],
    // The shipped example, generated once per run (when a test first asks) for the tests that read it: sharedExample().
    globalSetup: ["tests/helpers/example-setup.ts"],
    // Functional tests spawn processes and run git and pytest, and mostly wait on them: on two cores, three
    // test files at a time kept the CPU busier (148%) and took 244 s where two took 410 s.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // @actions/workflow-parser imports its JSON schema without `with { type: "json" }`, which Node refuses;
    // inlined, vite's own loader reads it.
    server: { deps: { inline: ["@actions/workflow-parser"] } },
  },
});
