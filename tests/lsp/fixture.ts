import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Rpg, RpgNode } from "../../src/rpg/schema.js";

/**
 * A small generated-looking repository (src layout) for the code intelligence tests. Each test works on names of its
 * own, so that one server per test file serves them all in any order:
 * - calculate_mean is defined in 3 files;
 * - validate_input is called in 5 places (2 in one module, an attribute call through `from . import validation`, a
 *   method), besides 3 imports and an `__all__` entry;
 * - format_row is called in 4 places in 3 files (one through `import statpkg.report as report`), for the rename;
 * - normalize, clamp and Accumulator are edited; slugify and clean_text clash.
 */
export const STAT_REPO: Record<string, string> = {
  "pyproject.toml": '[project]\nname = "statpkg"\nversion = "0.1.0"\n',
  "src/statpkg/__init__.py":
    'from .validation import validate_input\nfrom .mean import calculate_mean\n\n__all__ = ["calculate_mean", "validate_input"]\n',
  "src/statpkg/validation.py": [
    '"""Input checks."""',
    "",
    "",
    "def validate_input(values):",
    '    """Return the values as a list of floats; ValueError when there are none."""',
    "    if not values:",
    '        raise ValueError("no values")',
    "    return [float(v) for v in values]",
    "",
  ].join("\n"),
  "src/statpkg/mean.py": [
    "from .validation import validate_input",
    "",
    "",
    "def calculate_mean(values: list[float]) -> float:",
    '    """The arithmetic mean of the values."""',
    "    data = validate_input(values)",
    "    return sum(data) / len(data)",
    "",
  ].join("\n"),
  "src/statpkg/legacy.py": [
    "def calculate_mean(values, weights=None):",
    '    """The old weighted mean, kept for callers of 0.1."""',
    "    weights = weights or [1] * len(values)",
    "    return sum(v * w for v, w in zip(values, weights)) / sum(weights)",
    "",
  ].join("\n"),
  "tools/quick.py": ["import statistics", "", "", "def calculate_mean(xs):", "    return statistics.fmean(xs)", ""].join("\n"),
  "src/statpkg/median.py": [
    "from statpkg.validation import validate_input",
    "",
    "",
    "def median(values):",
    '    """The middle value."""',
    "    data = sorted(validate_input(values))",
    "    return data[len(data) // 2]",
    "",
    "",
    "class Summary:",
    '    """Describes a sample."""',
    "",
    "    def describe(self, values):",
    "        checked = validate_input(values)",
    '        return {"n": len(checked)}',
    "",
  ].join("\n"),
  "src/statpkg/spread.py": [
    "from . import validation",
    "from .validation import validate_input",
    "",
    "",
    "def spread(values):",
    "    data = validation.validate_input(values)",
    "    return max(data) - min(data)",
    "",
    "",
    "def variance(values):",
    "    data = validate_input(values)",
    "    mean = sum(data) / len(data)",
    "    return sum((x - mean) ** 2 for x in data) / len(data)",
    "",
  ].join("\n"),
  "src/statpkg/report.py": [
    "def format_row(label, value):",
    '    """One line of a report."""',
    '    return f"{label}: {value:.2f}"',
    "",
    "",
    "def render(rows):",
    '    return "\\n".join(format_row(k, v) for k, v in rows)',
    "",
  ].join("\n"),
  "src/statpkg/table.py": [
    "from .report import format_row",
    "",
    "",
    "def table(stats):",
    '    head = format_row("n", stats["n"])',
    '    body = [format_row(k, v) for k, v in stats.items() if k != "n"]',
    "    return [head, *body]",
    "",
  ].join("\n"),
  "src/statpkg/cli.py": [
    "import statpkg.report as report",
    "",
    "",
    "def main(argv):",
    "    print(report.format_row(argv[0], float(argv[1])))",
    "",
  ].join("\n"),
  "src/statpkg/shaping.py": [
    "import functools",
    "",
    "REGISTRY = {}",
    "",
    "",
    "def register(name):",
    "    def put(fn):",
    "        REGISTRY[name] = fn",
    "        return fn",
    "",
    "    return put",
    "",
    "",
    '@register("normalize")',
    "def normalize(values, *, scale=1.0):",
    '    """Scale the values so that they sum to `scale`.',
    "",
    "    Zero sums are returned unchanged.",
    '    """',
    "    # the total decides everything",
    "    total = sum(values)",
    "    if total == 0:",
    "        return list(values)",
    "    return [v * scale / total for v in values]",
    "    # end of normalize",
    "",
    "",
    "@functools.cache",
    "def clamp(x, low=0.0, high=1.0):",
    '    """Keep x within [low, high]."""',
    "    return max(low, min(high, x))",
    "",
    "",
    "class Accumulator:",
    '    """Collects values."""',
    "",
    "    def __init__(self):",
    "        self.items = []",
    "",
    "    def add(self, value):",
    "        self.items.append(value)",
    "",
    "    def total(self):",
    "        return sum(self.items)",
    "",
  ].join("\n"),
  "src/statpkg/text.py": [
    "def slugify(text):",
    '    return clean_text(text).replace(" ", "-")',
    "",
    "",
    "def clean_text(text):",
    "    return text.strip().lower()",
    "",
  ].join("\n"),
};

/** Writes the files into a fresh temporary directory (its real path) and returns it. */
export function writeRepo(files: Record<string, string> = STAT_REPO): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "rpg-forge-lsp-")));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

export function readRepoFile(root: string, rel: string): string {
  return readFileSync(join(root, rel), "utf8");
}

/** Whether a process is still there. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const leafOf = (id: string, name: string, file: string, more: Partial<RpgNode> = {}): RpgNode => ({
  id,
  name,
  type: "function",
  node_type: "leaf",
  file_path: file,
  docstring: `${name}.`,
  dependencies: [],
  subgraph_id: "stats",
  ...more,
});

/**
 * A plan of part of STAT_REPO: 5 planned dependencies between leaves whose code is there, 4 of them in the code
 * (spread does not call calculate_mean), one call the plan does not have (variance calls validate_input), and one
 * node that was never generated.
 */
export const STAT_RPG: Pick<Rpg, "nodes" | "edges"> = {
  nodes: [
    leafOf("stats.validate", "validate_input", "src/statpkg/validation.py"),
    leafOf("stats.mean", "calculate_mean", "src/statpkg/mean.py", { dependencies: ["stats.validate"] }),
    leafOf("stats.median", "median", "src/statpkg/median.py"),
    leafOf("stats.summary", "Summary", "src/statpkg/median.py", { type: "class" }),
    leafOf("stats.summary.describe", "describe", "src/statpkg/median.py", {
      type: "method",
      parent_id: "stats.summary",
      dependencies: ["stats.validate", "stats.summary"],
    }),
    leafOf("stats.spread", "spread", "src/statpkg/spread.py", { dependencies: ["stats.mean"] }),
    leafOf("stats.variance", "variance", "src/statpkg/spread.py"),
    leafOf("stats.ghost", "not_generated", "src/statpkg/ghost.py", { dependencies: ["stats.validate"] }),
  ],
  edges: [
    { source: "stats.median", target: "stats.validate", type: "function_call" },
    { source: "stats.validate", target: "stats.spread", type: "data_flow" },
  ],
};

/** What checking STAT_RPG against STAT_REPO finds, whichever backend does. */
export const STAT_DEPENDENCY_CHECK = {
  target: 0.8,
  planned: 5,
  confirmed: 4,
  share: 0.8,
  meetsTarget: true,
  missing: [{ dependent: "stats.spread", dependency: "stats.mean", plannedAs: ["dependencies"] }],
  unplanned: [{ dependent: "stats.variance", dependency: "stats.validate", at: [{ file: "src/statpkg/spread.py", line: 11 }] }],
  unchecked: 1,
  notFound: ["stats.ghost"],
  unreferenced: ["stats.mean", "stats.median", "stats.spread", "stats.summary", "stats.summary.describe", "stats.variance"],
};
