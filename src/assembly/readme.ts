import type { NodeStatus, Rpg } from "../rpg/schema.js";
import { moduleOf, signatureOf } from "./layout.js";
import { MARKER } from "./owned-file.js";
import type { ProjectInfo } from "./pyproject.js";

/**
 * The generated package's README: what it is, its modules per subgraph with what
 * each function does, usage from the nodes' examples, and how to install and test.
 */
export function renderPackageReadme(rpg: Rpg, info: ProjectInfo, statusOf: (id: string) => NodeStatus | undefined): string {
  const leaves = rpg.nodes.filter((n) => n.node_type === "leaf");
  const passed = leaves.filter((n) => statusOf(n.id) === "passed");
  const lines = [`<!-- ${MARKER} from docs/rpg.json. -->`, `# ${info.name}`, ""];
  if (info.description) lines.push(info.description, "");
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
    lines.push(`### ${subgraph.name}`, "");
    if (subgraph.description) lines.push(subgraph.description, "");
    for (const node of members) {
      const summary = node.docstring.split("\n\n")[0]!.replace(/\s+/g, " ").trim();
      const status = statusOf(node.id);
      const note = status === "passed" ? "" : ` _(not generated: ${status ?? "pending"})_`;
      lines.push(`- \`${moduleOf(node.file_path)}.${signatureOf(node).replace(/^(def|class) /, "")}\`: ${summary}${note}`);
    }
    lines.push("");
  }
  const examples = passed.filter((n) => (n.examples ?? []).length > 0);
  if (examples.length > 0) {
    lines.push("## Usage", "", "```python");
    for (const node of examples) {
      lines.push(
        `>>> from ${moduleOf(node.file_path)} import ${node.name}`,
        ...node.examples!.map((e) => (e.startsWith(">>>") ? e : `>>> ${e}`)),
        "",
      );
    }
    if (lines[lines.length - 1] === "") lines.pop();
    lines.push("```", "");
  }
  return `${lines.join("\n")}`;
}
