import type { NodeStatus } from "./checkpoint.js";
import type { Backend } from "./dependency-check.js";

/** Everything the engine tells an edge while it runs. The engine never prints; edges render these. */
export type RunEvent =
  | { type: "run-started"; runId: string; total: number; toRun: number; resumed: boolean }
  | { type: "checkpoint-set-aside"; path: string }
  | { type: "nodes-reset"; nodeIds: string[]; reason: "spec-changed" | "not-in-rpg" | "not-written" }
  | { type: "node-started"; nodeId: string; attempt: number }
  | {
      type: "node-finished";
      nodeId: string;
      status: Exclude<NodeStatus, "pending" | "in_progress">;
      durationMs: number;
      reason?: string;
      blockedBy?: string[];
      /** Debug iterations and tokens, for nodes that ran. */
      iterations?: number;
      tokens?: number;
    }
  | { type: "progress"; done: number; total: number; elapsedMs: number; etaMs: number }
  /** A batch of passed nodes' files went to the output; `failed` nodes could not be written, `blocked` ones import one of those. */
  | { type: "batch-written"; nodeIds: string[]; files: string[]; failed: { nodeId: string; reason: string }[]; blocked: string[] }
  /** A subgraph's integration tests ran (decision 0024): how many cases passed, and how many the shipped file holds. */
  | {
      type: "integration-tested";
      subgraphId: string;
      status: "validated" | "not_validated";
      passed: number;
      total: number;
      shipped: number;
      note?: string;
    }
  /** The dependency check ran once every node had settled (decision 0026): which implementation answered, and what it found. */
  | {
      type: "dependency-checked";
      via: Backend;
      target: number;
      planned: number;
      confirmed: number;
      share: number | null;
      meetsTarget: boolean;
    }
  /** A completed subgraph's commit on the run branch (sha, tag) and its own branch, either of which may be unchanged. */
  | { type: "subgraph-committed"; subgraphId: string; sha?: string; tag?: string; branch?: string }
  | { type: "run-finished"; interrupted: boolean; elapsedMs: number };

export type RunEventListener = (event: RunEvent) => void;
