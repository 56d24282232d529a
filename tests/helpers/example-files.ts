/**
 * The Python files the shipped example's stats subgraph adds: its commit's own, and its PR's diff on the one below it.
 * A test of the CLI's history and one of the PRs merged from the Action's run both hold the example to them.
 */
export const EXAMPLE_STATS_PYTHON_FILES = [
  "src/statkit/__init__.py",
  "src/statkit/stats/__init__.py",
  "src/statkit/stats/descriptive.py",
  "src/statkit/stats/spread.py",
  "tests/integration/test_stats.py",
  "tests/test_descriptive.py",
  "tests/test_spread.py",
] as const;
