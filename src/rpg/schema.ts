import { z } from "zod";

/**
 * The RPG file format: PRD appendix A plus the optional fields real planners emit.
 * This is the single source of the shape; docs/rpg.schema.json is generated from it.
 * Objects are loose so a planner's extra fields survive into docs/rpg.json; the
 * validator warns about keys it does not know, since a misspelt optional key would
 * otherwise vanish silently.
 */
export const EdgeTypeSchema = z
  .enum(["function_call", "import", "inherits", "uses", "data_flow"])
  .describe(
    "function_call, import, inherits, uses: the source depends on the target. data_flow: the target depends on the source (producer before consumer).",
  );

export const NodeKindSchema = z
  .enum(["leaf", "composite"])
  .describe("leaf: a function or class that is generated. composite: a module or package that contains other nodes.");

export const NodeStatusSchema = z
  .enum(["pending", "in_progress", "passed", "failed", "skipped"])
  .describe("Generation status of a node; rpg-forge writes it into docs/rpg.json and ignores it on input.");

export const RpgNodeSchema = z.looseObject({
  id: z.string().min(1).describe("Unique, stable identifier of the node."),
  name: z.string().min(1).describe("The Python name of the symbol (function, class), or of the module or package."),
  type: z.string().min(1).describe("function, class, module, package, ..."),
  node_type: NodeKindSchema,
  file_path: z
    .string()
    .min(1)
    .describe("POSIX path relative to the repository root. Leaves and modules: a .py file. Packages: a directory or its __init__.py."),
  docstring: z.string().describe("The specification of the node; required (non-empty) for leaves."),
  dependencies: z.array(z.string()).default([]).describe("Ids of nodes generated before this one (this node depends on them)."),
  subgraph_id: z.string().min(1).describe("The subgraph (feature area) the node belongs to."),
  parent_id: z.string().min(1).optional().describe("The composite node (module or package) that contains this node."),
  signature: z.string().optional().describe('Python signature, e.g. "def calculate_mean(numbers: list[float]) -> float".'),
  examples: z.array(z.string()).optional().describe("Usage examples (doctest style or plain Python), used as extra tests."),
  requirements: z
    .array(z.string())
    .optional()
    .describe('Third-party packages the node needs, as PEP 508 requirement strings, e.g. "numpy>=1.24".'),
  status: NodeStatusSchema.optional(),
});

export const RpgEdgeSchema = z.looseObject({
  source: z.string().min(1),
  target: z.string().min(1),
  type: EdgeTypeSchema,
});

export const RpgSubgraphSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
});

export const RpgMetadataSchema = z
  .looseObject({
    name: z.string().min(1).optional().describe("Name of the generated Python project."),
    description: z.string().optional(),
    version: z.string().optional(),
  })
  .describe("Free-form planner metadata; name, description and version feed the generated package.");

export const RpgSchema = z
  .looseObject({
    nodes: z.array(RpgNodeSchema),
    edges: z.array(RpgEdgeSchema).default([]),
    subgraphs: z.array(RpgSubgraphSchema).optional(),
    metadata: RpgMetadataSchema.default({}),
  })
  .describe("A Repository Planning Graph: the functions and classes of a Python package and their dependencies.");

export type EdgeType = z.infer<typeof EdgeTypeSchema>;
export type NodeStatus = z.infer<typeof NodeStatusSchema>;
export type RpgNode = z.infer<typeof RpgNodeSchema>;
export type RpgEdge = z.infer<typeof RpgEdgeSchema>;
export type RpgSubgraph = z.infer<typeof RpgSubgraphSchema>;
export type Rpg = z.infer<typeof RpgSchema>;

/** The keys each object of the format knows; anything else draws a warning. */
export const KNOWN_KEYS = {
  root: Object.keys(RpgSchema.shape),
  node: Object.keys(RpgNodeSchema.shape),
  edge: Object.keys(RpgEdgeSchema.shape),
  subgraph: Object.keys(RpgSubgraphSchema.shape),
} as const;
