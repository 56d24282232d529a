import * as core from "@actions/core";
import { z } from "zod";

import { DispatchInputsSchema, MODES } from "../config/dispatch-inputs.js";
import { RepoConfigSchema, type RepoConfig } from "../config/repo-config.js";

export { MODES };

const ids = z
  .string()
  .transform((text) => text.split(/[\s,]+/).filter(Boolean))
  .pipe(z.array(z.string()));

const positive = (name: string, fallback: number) =>
  z
    .string()
    .transform((text) => (text.trim() === "" ? fallback : Number(text)))
    .pipe(
      z
        .number({ error: `${name} must be a whole number` })
        .int(`${name} must be a whole number`)
        .min(1, `${name} must be at least 1`),
    );

/** The action's inputs (action.yml), one source of truth for their types. */
export const ActionInputsSchema = z
  .object({
    rpgPath: z.string().min(1, "rpg-path must name the RPG file"),
    mode: z.enum(MODES, { error: `mode must be one of ${MODES.join(", ")}` }),
    nodes: ids,
    subgraphs: ids,
    model: z.string(),
    maxIterations: positive("max-iterations", 8),
    /** From .github/rpg-forge.yml only: a workflow input would take one of the ten a dispatch may carry. */
    diagnosisVotes: z.number().int().min(1).optional(),
    mutants: z.number().int().min(0).optional(),
    integrationTests: z.boolean().optional(),
    fixTools: z.boolean().optional(),
    review: z.boolean().optional(),
    concurrency: positive("concurrency", 1),
    baseBranch: z.string(),
    githubToken: z.string(),
    appId: z.string(),
    appPrivateKey: z.string(),
    issue: z
      .string()
      .transform((text) => (text.trim() === "" ? undefined : Number(text)))
      .pipe(
        z
          .number({ error: "issue must be an issue number" })
          .int("issue must be an issue number")
          .positive("issue must be an issue number")
          .optional(),
      ),
    request: DispatchInputsSchema.shape.request.unwrap().transform((text) => parseRequest(text)),
    replay: z.string(),
    sandbox: z.enum(["bwrap", "process"], { error: "sandbox must be bwrap or process" }),
  })
  .check((ctx) => {
    // A review names its nodes by the lines its comments are on; the run finds them.
    if (ctx.value.mode === "revise" && ctx.value.nodes.length === 0 && ctx.value.request?.kind !== "review")
      ctx.issues.push({
        code: "custom",
        message: "mode revise needs the nodes to regenerate (input nodes) or the review that asks for it (input request)",
        input: ctx.value,
        path: ["nodes"],
      });
  });

export type ActionInputs = z.infer<typeof ActionInputsSchema>;

/** The comment or review that asked for a run, by its id (the `request` input). */
export interface RunRequest {
  kind: "comment" | "review";
  id: number;
}

function parseRequest(text: string): RunRequest | undefined {
  const match = /^(comment|review)-(\d+)$/.exec(text);
  return match ? { kind: match[1] as RunRequest["kind"], id: Number(match[2]) } : undefined;
}

/**
 * Reads and checks the inputs; a bad one is named in the error. An input left empty takes the repository's
 * `.github/rpg-forge.yml` setting, else the built-in default. The runner fills an omitted input with its
 * action.yml default, which then counts as given: only an input whose default there is empty can fall back
 * on the config.
 */
export function readInputs(config: RepoConfig = RepoConfigSchema.parse({})): ActionInputs {
  const given = (name: string, fromConfig: string | number | undefined) => core.getInput(name) || (fromConfig?.toString() ?? "");
  const raw = {
    rpgPath: given("rpg-path", config.rpg[0]) || "rpg.json",
    mode: core.getInput("mode") || "generate",
    nodes: core.getInput("nodes"),
    subgraphs: core.getInput("subgraphs"),
    model: given("model", config.model),
    maxIterations: given("max-iterations", config["max-iterations"]),
    diagnosisVotes: config["diagnosis-votes"],
    mutants: config.mutants,
    integrationTests: config["integration-tests"],
    fixTools: config["fix-tools"],
    review: config.review,
    concurrency: given("concurrency", config.concurrency),
    baseBranch: given("base-branch", config["base-branch"]),
    githubToken: core.getInput("github-token"),
    appId: core.getInput("app-id"),
    appPrivateKey: core.getInput("app-private-key"),
    issue: core.getInput("issue"),
    request: core.getInput("request"),
    replay: core.getInput("replay"),
    sandbox: core.getInput("sandbox") || "bwrap",
  };
  const parsed = ActionInputsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => i.message).join("; ");
    throw new Error(`invalid input: ${problems}`);
  }
  return parsed.data;
}
