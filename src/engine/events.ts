import type { TokenUsage } from "../llm/provider.js";
import type { RpgNode } from "../rpg/schema.js";
import type { Coverage } from "../record/coverage.js";
import type { TestStrength } from "../record/test-strength.js";
import type { Diagnosis, FailureContext, Review, TestResults } from "./checkpoint.js";

/** What a node executor reports for one node. A failing node is a result, not an exception. */
export type NodeOutcome =
  | {
      status: "passed";
      iterations: number;
      testResults?: TestResults;
      usage?: TokenUsage;
      /** The top-level names its code defines in its module (its symbol and its support code's); the symbol alone when absent. */
      owns?: string[];
      diagnoses?: Diagnosis[];
      regressions?: number;
      /** The reviews of its passing code (decision 0027); the last one rejected when its objection was never resolved. */
      reviews?: Review[];
      /** The share of mutants of its code its tests kill (decision 0022); absent when none was measured. */
      testStrength?: TestStrength;
      /** The line and branch coverage of its code by its own tests (decision 0023), or why there is no figure. */
      coverage?: Coverage;
      coverageNote?: string;
    }
  | {
      status: "failed";
      iterations: number;
      reason: string;
      testResults?: TestResults;
      usage?: TokenUsage;
      context?: FailureContext;
      diagnoses?: Diagnosis[];
      regressions?: number;
      reviews?: Review[];
    }
  /** The run was asked to stop while the node was in progress; it stays in_progress and is retried on resume. */
  | { status: "interrupted" };

export interface NodeContext {
  runId: string;
  /** 1 for the first start of this node, counting earlier runs of the same checkpoint. */
  attempt: number;
  signal: AbortSignal;
}

/** Generates one leaf node. The engine decides order, state and checkpoints; the executor only does the node. */
export type NodeExecutor = (node: RpgNode, context: NodeContext) => Promise<NodeOutcome>;

export type { RunEvent, RunEventListener } from "../record/events.js";
