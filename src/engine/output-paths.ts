/** Where rpg-forge keeps its own records in the output, relative to its root. */
export const CHECKPOINT_PATH = "docs/generation_checkpoint.json";
export const REPORT_PATH = "docs/generation_report.md";
/** What changed in the checkpoint since it was last written whole: rpg-forge's own, never committed. */
export const JOURNAL_PATH = ".rpg-forge/checkpoint.journal";

/** The RPG as exported with each node's status, and the model that generated the package. */
export const EXPORTED_RPG_PATH = "docs/rpg.json";

/** pytest's configuration, written by the scaffold: the src layout on the path. */
export const PYTEST_INI = "pytest.ini";

/** Files assembly writes besides the nodes' own: with the checkpoint and the report, what git knows as rpg-forge's. */
export const ASSEMBLED = [
  PYTEST_INI,
  "pyproject.toml",
  "README.md",
  "requirements.txt",
  "requirements-dev.txt",
  ".gitignore",
  EXPORTED_RPG_PATH,
  CHECKPOINT_PATH,
  REPORT_PATH,
] as const;

/** The whole suite's JUnit report, left in the output after a run; its timings change every run, so it is never committed. */
export const TEST_RESULTS_PATH = "test_results.xml";
