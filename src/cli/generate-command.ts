import { InvalidArgumentError, Option, type Command } from "commander";
import { generate } from "../engine/generate.js";
import { rpgHash } from "../engine/run-id.js";
import { DEFAULT_DIAGNOSIS_VOTES, DEFAULT_MUTANTS } from "../engine/tdd-setup.js";
import { selectProvider } from "../llm/select.js";
import { loadRpgWithText } from "../rpg/load.js";
import { EXIT, printIssues, printRunError, type CliIo } from "./output.js";
import { committedReport } from "../report/generation-report.js";
import { progressPrinter } from "../report/progress.js";
import { writeRunReport } from "../report/run-report.js";
import { terminalLine } from "../report/terminal.js";
import { DEFAULT_LIMITS, LIMIT_FLAGS } from "../sandbox/limits.js";

interface GenerateFlags {
  out: string;
  resume?: boolean;
  fresh?: boolean;
  startFromNode?: string;
  only?: string[];
  maxIterations: number;
  diagnosisVotes: number;
  mutants: number;
  integrationTests: boolean;
  languageServer: boolean;
  fixTools: boolean;
  review?: boolean;
  concurrency: number;
  model?: string;
  replay?: string;
  replayStrict?: boolean;
  record?: string;
  sandbox?: "bwrap" | "process";
  testTimeout: number;
  memoryLimit: number;
  fileSizeLimit: number;
  processLimit: number;
  cpuLimit: number;
  git: boolean;
  allowDirty?: boolean;
  branchPerSubgraph?: boolean;
}

export function addGenerateCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("generate")
    .description("generate the package test-first, node by node, with a checkpoint after every node")
    .argument("<rpg>", "path to the RPG JSON file")
    .requiredOption("--out <dir>", "the output directory (created when missing)")
    .addOption(new Option("--resume", "continue from the checkpoint in the output").conflicts("fresh"))
    .option("--fresh", "start again; an existing checkpoint is kept beside it as .previous-<time>")
    .option("--start-from-node <id>", "start at this node of the order (its dependencies must have passed)")
    .option("--only <ids>", "regenerate exactly these nodes, comma-separated", (value: string) =>
      value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .option("--max-iterations <n>", "debug iterations per node", positiveInt, 8)
    .option("--diagnosis-votes <n>", "diagnoses of a failing gate, a majority of which decides", positiveInt, DEFAULT_DIAGNOSIS_VOTES)
    .option("--mutants <n>", "mutants of each passed node's code to measure its tests against (0: none)", wholeInt, DEFAULT_MUTANTS)
    .option("--review", "have the model review each node's passing code against its docstring; a rejection goes to the fix step")
    .option("--no-integration-tests", "do not generate integration tests for each subgraph whose nodes all passed")
    .option("--no-fix-tools", "do not offer fix requests the localization tools as model tool calls (the context stays inlined)")
    .option("--no-language-server", "answer the debug loop's code questions with Python's parser instead of pyright-langserver")
    .option("--concurrency <n>", "model requests in flight; above 1, nodes side by side, one running its tests per core", positiveInt, 1)
    .option("--model <name>", "model name (default: RPG_FORGE_MODEL or gpt-4o-mini)")
    .option("--replay <cassette>", "answer from a recorded cassette instead of a live model (offline)")
    .option("--replay-strict", "with --replay: also require every prompt to match the recording")
    .addOption(new Option("--record <cassette>", "record every exchange with the live model to this cassette").conflicts("replay"))
    .addOption(new Option("--sandbox <kind>", "where generated tests run (default: bwrap when it works)").choices(["bwrap", "process"]))
    .option("--test-timeout <seconds>", "time limit per test", positiveInt, 30)
    .option(`${LIMIT_FLAGS.memoryMiB} <MiB>`, "address space of each process the tests run", positiveInt, DEFAULT_LIMITS.memoryMiB)
    .option(`${LIMIT_FLAGS.fileSizeMiB} <MiB>`, "largest file the tests may write", positiveInt, DEFAULT_LIMITS.fileSizeMiB)
    .option(
      `${LIMIT_FLAGS.processes} <n>`,
      "processes the tests may run (not enforced for root outside bubblewrap)",
      positiveInt,
      DEFAULT_LIMITS.processes,
    )
    .option(`${LIMIT_FLAGS.cpuSeconds} <seconds>`, "CPU time of each process the tests run", positiveInt, DEFAULT_LIMITS.cpuSeconds)
    .option("--no-git", "do not keep the output as a git repository (default: a commit and a tag per completed subgraph)")
    .option("--allow-dirty", "start even if the output repository has uncommitted changes")
    .option("--branch-per-subgraph", "also give each subgraph a branch rpg/<name>/<subgraph>, based on the branches it needs")
    .addHelpText(
      "after",
      "\nThe model: OPENAI_API_KEY and OPENAI_BASE_URL (any OpenAI-compatible server), or --replay.\nExit codes: 0 every node passed, 1 some node failed, 2 bad input, 130 interrupted.",
    )
    .action(async (file: string, flags: GenerateFlags) => {
      setExit(await runGenerate(file, flags, io));
    });
}

async function runGenerate(file: string, flags: GenerateFlags, io: CliIo): Promise<number> {
  const { loaded, text } = await loadRpgWithText(file);
  if (!loaded.ok) {
    printIssues(io, loaded.issues);
    io.err(`${file}: invalid; nothing was generated\n`);
    return EXIT.badInput;
  }
  printIssues(io, loaded.warnings);

  // Ctrl-C stops between steps: the node in progress is undone, the checkpoint saved.
  // A second Ctrl-C leaves at once; the checkpoint on disk is still whole.
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    io.err("\nStopping after the current step (Ctrl-C again to quit now)...\n");
    controller.abort(new Error("interrupted by the user"));
  };
  process.on("SIGINT", onSigint);
  try {
    const { provider, model } = await selectProvider(flags, process.env);
    const result = await generate({
      rpg: loaded.value,
      rpgPath: file,
      rpgSha256: rpgHash(text),
      outDir: flags.out,
      provider,
      model,
      mode: flags.resume ? "resume" : flags.fresh ? "fresh" : "new",
      startFromNode: flags.startFromNode,
      only: flags.only,
      maxIterations: flags.maxIterations,
      diagnosisVotes: flags.diagnosisVotes,
      mutants: flags.mutants,
      integrationTests: flags.integrationTests,
      // On by default only where the pyright package resolves; the flag turns it off, never on.
      languageServer: flags.languageServer ? undefined : false,
      fixTools: flags.fixTools,
      review: flags.review,
      concurrency: flags.concurrency,
      sandbox: flags.sandbox,
      perTestTimeoutMs: flags.testTimeout * 1000,
      limits: { memoryMiB: flags.memoryLimit, fileSizeMiB: flags.fileSizeLimit, processes: flags.processLimit, cpuSeconds: flags.cpuLimit },
      git: flags.git,
      allowDirty: flags.allowDirty,
      branchPerSubgraph: flags.branchPerSubgraph,
      renderCommittedReport: committedReport,
      onEvent: progressPrinter(io.err),
      onNotice: (notice) => io.err(`warning: ${terminalLine(notice)}\n`),
      signal: controller.signal,
    });
    const { path: reportPath } = await writeRunReport(flags.out, { ...result, rpgPath: file, model });
    const c = result.summary.counts;
    const branch = result.branch ? `; branch ${result.branch}` : "";
    io.out(`${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped of ${c.total} nodes; report: ${reportPath}${branch}\n`);
    if (result.interrupted) return EXIT.interrupted;
    return c.failed + c.skipped + c.pending + c.in_progress === 0 ? EXIT.ok : EXIT.failed;
  } catch (error) {
    return printRunError(io, error);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function wholeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("expected a whole number, 0 or more");
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number of at least 1");
  return n;
}
