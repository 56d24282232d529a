// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Imports a folder may not make, type imports included: the layers of STYLE.md §3, checked in CI. */
const GITHUB_PACKAGES = ["probot", "probot/*", "@octokit/*", "@actions/*"];
const layer = (files, patterns, message) => ({
  files,
  rules: { "no-restricted-imports": ["error", { patterns: [{ group: patterns, message }] }] },
});

export default tseslint.config(
  { ignores: ["node_modules/", "build/", "dist/", "coverage/", "**/*.py"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  layer(
    ["src/errors.ts", "src/redact.ts", "src/rpg/**", "src/plan/**", "src/config/**", "src/record/**"],
    [
      "**/engine/**",
      "**/llm/**",
      "**/sandbox/**",
      "**/python-helpers/**",
      "**/review/**",
      "**/lsp/**",
      "**/localize/**",
      "**/workspace/**",
      "**/assembly/**",
      "**/report/**",
      "**/github/**",
      "**/cli/**",
      "**/action/**",
      "**/app/**",
      ...GITHUB_PACKAGES,
    ],
    "the foundation (errors.ts, redact.ts, rpg/, plan/, config/, record/) is pure: zod, js-yaml and node: built-ins only",
  ),
  layer(
    [
      "src/llm/**",
      "src/sandbox/**",
      "src/python-helpers/**",
      "src/review/**",
      "src/lsp/**",
      "src/localize/**",
      "src/workspace/**",
      "src/assembly/**",
      "src/report/**",
    ],
    ["**/engine/**", "**/github/**", "**/cli/**", "**/action/**", "**/app/**", ...GITHUB_PACKAGES],
    "capabilities never know the engine or GitHub",
  ),
  layer(
    ["src/engine/**"],
    ["**/report/**", "**/github/**", "**/cli/**", "**/action/**", "**/app/**", ...GITHUB_PACKAGES],
    "the engine knows nothing of reports, GitHub or its edges: the edges render and write the reports",
  ),
  layer(
    ["src/github/**"],
    ["**/engine/**", "**/cli/**", "**/action/**", "**/app/**"],
    "github/ knows rpg and report shapes, not the engine",
  ),
  layer(["src/cli/**"], ["**/action/**", "**/app/**"], "the edges do not import each other"),
  layer(["src/action/**"], ["**/cli/**", "**/app/**"], "the edges do not import each other"),
  layer(["src/app/**"], ["**/cli/**", "**/action/**"], "the edges do not import each other"),
);
