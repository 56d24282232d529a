import { Option, type Command } from "commander";
import { buildPlan, type Plan } from "../plan/plan.js";
import { loadRpg } from "../rpg/load.js";
import { renderMermaid } from "../report/mermaid.js";
import { terminalLine } from "../report/terminal.js";
import { EXIT, printIssues, type CliIo } from "./output.js";

export function addPlanCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("plan")
    .description("print the generation order, the dependency levels and the subgraphs of an RPG")
    .argument("<rpg>", "path to the RPG JSON file")
    .addOption(new Option("--json", "print the plan as JSON (its `order` is the node ids in generation order)").conflicts("mermaid"))
    .option("--mermaid", "print the graph as a Mermaid flowchart grouped by subgraph")
    .action(async (file: string, options: { json?: boolean; mermaid?: boolean }) => {
      const loaded = await loadRpg(file);
      if (!loaded.ok) {
        printIssues(io, loaded.issues);
        setExit(EXIT.badInput);
        return;
      }
      printIssues(io, loaded.warnings);
      const plan = buildPlan(loaded.value);
      if (options.json) io.out(`${JSON.stringify(planJson(plan), null, 2)}\n`);
      else if (options.mermaid) io.out(renderMermaid(plan));
      else io.out(planText(plan, file));
    });
}

/** The plan as the JSON `plan --json` prints and the Action outputs. */
export function planJson(plan: Plan): object {
  return {
    order: plan.order,
    levels: plan.levels,
    critical_path: plan.criticalPath,
    critical_path_length: plan.criticalPath.length,
    subgraphs: plan.subgraphs.map((s) => ({ id: s.id, name: s.name, wave: s.wave, depends_on: s.dependsOn, nodes: s.nodes })),
  };
}

function planText(plan: Plan, file: string): string {
  const lines = [
    `${file}: ${plan.order.length} nodes in ${plan.levels.length} levels, ${plan.subgraphs.length} subgraphs; critical path ${plan.criticalPath.length} nodes`,
    "",
    "Order:",
  ];
  const width = String(plan.order.length).length;
  const idWidth = Math.min(32, Math.max(...plan.order.map((id) => id.length)));
  plan.order.forEach((id, i) => {
    const node = plan.nodes.get(id)!;
    const kind = node.node_type === "composite" ? ` (${node.type})` : "";
    lines.push(
      `  ${String(i + 1).padStart(width)}. ${id.padEnd(idWidth)}  ${node.name}${kind}  [${node.subgraph_id}, level ${plan.levelOf.get(id)}]`,
    );
  });
  lines.push("", "Levels (nodes of one level could be generated at the same time):");
  plan.levels.forEach((level, i) => lines.push(`  ${i}: ${level.join(", ")}`));
  lines.push("", `Critical path: ${plan.criticalPath.join(" → ")}`, "", "Subgraphs (in waves; a wave needs only earlier waves):");
  for (const s of plan.subgraphs) {
    const needs = s.dependsOn.length > 0 ? `needs ${s.dependsOn.join(", ")}` : "needs nothing";
    lines.push(`  wave ${s.wave < 0 ? "?" : s.wave}  ${s.id}${s.name !== s.id ? ` (${s.name})` : ""}: ${s.nodes.length} nodes, ${needs}`);
  }
  // Subgraph names and ids are the RPG's text: each line stays one inert line.
  return `${lines.map(terminalLine).join("\n")}\n`;
}
