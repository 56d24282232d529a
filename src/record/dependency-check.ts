import { z } from "zod";
import { EdgeTypeSchema } from "../rpg/schema.js";

/*
 * The dependency check (decision 0026): the RPG's planned dependencies between leaves against the references code
 * intelligence finds in the generated code. In the foundation because the checkpoint records it (decision 0028) and
 * the report renders it, and neither may look up to src/lsp/, which makes it.
 */

/** Which implementation answered: the language server, or Python's own parser standing in for it. */
export const BackendSchema = z.enum(["pyright", "ast"]);
export type Backend = z.infer<typeof BackendSchema>;

export const PlannedEdgeSchema = z.object({
  dependent: z.string().describe("Node id of the node that needs the other."),
  dependency: z.string(),
  plannedAs: z
    .array(z.union([EdgeTypeSchema, z.literal("dependencies")]))
    .describe("Where the plan states it: edge types, or the node's list."),
});

/** The PRD's dependency validation: the RPG's planned dependencies between leaves against the references in the code. */
export const DependencyCheckSchema = z.object({
  via: BackendSchema,
  target: z.number().describe("The PRD's target share of confirmed planned dependencies (0.8)."),
  planned: z.int().min(0).describe("Planned dependencies between two leaves whose code was found."),
  confirmed: z.int().min(0).describe("Of those, the ones the code has: the dependent refers to the dependency."),
  share: z.number().min(0).max(1).nullable().describe("confirmed / planned; null when nothing was planned."),
  meetsTarget: z.boolean(),
  missing: z.array(PlannedEdgeSchema).describe("Planned dependencies the code does not have."),
  unplanned: z
    .array(
      z.object({
        dependent: z.string(),
        dependency: z.string(),
        at: z.array(z.object({ file: z.string(), line: z.int().min(1) })).describe("Where the dependent refers to the dependency."),
      }),
    )
    .describe("References between two leaves that the plan does not have."),
  unchecked: z.int().min(0).describe("Planned dependencies left out because the code of one end was not found."),
  notFound: z.array(z.string()).describe("Leaf node ids whose definition is not in the repository (not generated, failed)."),
  unreferenced: z.array(z.string()).describe("Leaf node ids no other leaf refers to (entry points, or code nothing uses)."),
});
export type DependencyCheck = z.infer<typeof DependencyCheckSchema>;

/**
 * The check as the checkpoint records it: without which implementation answered, so that the same code gives the
 * same committed file with the language server or without it.
 */
export const RecordedDependencyCheckSchema = DependencyCheckSchema.omit({ via: true });
export type RecordedDependencyCheck = z.infer<typeof RecordedDependencyCheckSchema>;
