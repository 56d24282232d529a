import { code, fenced, prose } from "../report/markdown.js";
import type { NodeStatus, Rpg } from "../rpg/schema.js";
import { moduleOf, signatureOf } from "./layout.js";
import { MARKER } from "./owned-file.js";
import type { ProjectInfo } from "./pyproject.js";

/**
 * The generated package's README: what it is, its modules per subgraph with what
 * each function does, usage from the nodes' examples, and how to install and test.
 * The RPG's text (description, names, docstrings, examples) is quoted inert, as in the
 * PR comments: a planner's "@someone", link, image or HTML must not come alive here.
 */
export function renderPackageReadme(rpg: Rpg, info: ProjectInfo, statusOf: (id: string) => NodeStatus | undefined): string {
  const leaves = rpg.nodes.filter((n) => n.node_type === "leaf");
  const passed = leaves.filter((n) => statusOf(n.id) === "passed");
  const lines = [`<!-- ${MARKER} from docs/rpg.json. -->`, `# ${info.name}`, ""];
  if (info.description) lines.push(prose(info.description, 5000), "");
  lines.push(
    `Generated test-first by rpg-forge from the plan in [docs/rpg.json](docs/rpg.json): ${passed.length} of ${leaves.length} functions pass their tests; see [docs/generation_report.md](docs/generation_report.md).`,
    "",
    "## Install",
    "",
    "```sh",
    "pip install -e .",
    "```",
    "",
    "## Test",
    "",
    "```sh",
    "pip install -r requirements-dev.txt",
    "python -m pytest",
    "```",
    "",
    "## Modules",
    "",
  );
  const subgraphs = rpg.subgraphs ?? [...new Set(leaves.map((n) => n.subgraph_id))].map((id) => ({ id, name: id, description: undefined }));
  for (const subgraph of subgraphs) {
    const members = leaves.filter((n) => n.subgraph_id === subgraph.id);
    if (members.length === 0) continue;
    lines.push(`### ${prose(subgraph.name, 200)}`, "");
    if (subgraph.description) lines.push(prose(subgraph.description, 5000), "");
    for (const node of members) {
      const summary = node.docstring.split("\n\n")[0]!.replace(/\s+/g, " ").trim();
      const status = statusOf(node.id);
      const note = status === "passed" ? "" : ` _(not generated: ${status ?? "pending"})_`;
      lines.push(`- ${code(`${moduleOf(node.file_path)}.${signatureOf(node).replace(/^(def|class) /, "")}`)}: ${prose(summary)}${note}`);
    }
    lines.push("");
  }
  const examples = passed.filter((n) => (n.examples ?? []).length > 0);
  if (examples.length > 0) {
    const usage: string[] = [];
    for (const node of examples) {
      usage.push(
        `>>> from ${moduleOf(node.file_path)} import ${node.name}`,
        ...node.examples!.map((e) => (e.startsWith(">>>") ? e : `>>> ${e}`)),
        "",
      );
    }
    // A fence longer than any backtick run in the examples, so none of them can close it.
    lines.push("## Usage", "", fenced(usage.join("\n"), "python"), "");
  }
  return `${lines.join("\n")}`;
}
