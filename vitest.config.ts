import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    setupFiles: ["tests/helpers/git-identity.ts"],
    // Functional tests spawn processes and run git and pytest; two cores share them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
