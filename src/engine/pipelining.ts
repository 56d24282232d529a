import { availableParallelism } from "node:os";
import type { ModelProvider } from "../llm/provider.js";
import { Slots } from "./slots.js";

/** How a run shares out the model endpoint and the machine's cores (decision 0029). */
export interface Pipeline {
  /** Nodes the scheduler keeps in flight. */
  nodesInFlight: number;
  /** Model requests in flight at once; undefined: no limit beyond the nodes'. */
  requests?: Slots;
  /** pytest runs at once; undefined: no limit beyond the nodes'. */
  pytestRuns?: Slots;
}

/**
 * With a concurrency of 1, one node at a time: the plain walk over the order, whose lines people read as a story.
 * Above 1, `concurrency` is what the endpoint gets, model requests in flight, and the machine gets a pytest run per
 * core; up to `cores` more nodes are in flight than requests, so that some nodes run their tests while the others
 * wait on the model (issue 16: at 4, every node waiting on the model at once left the cores idle, and four pytest
 * runs on two cores each took twice their time, toward their time limit).
 */
export function pipelineFor(concurrency: number, cores: number = availableParallelism()): Pipeline {
  if (concurrency <= 1) return { nodesInFlight: 1 };
  const pytestRuns = Math.max(1, cores);
  return { nodesInFlight: concurrency + pytestRuns, requests: new Slots(concurrency), pytestRuns: new Slots(pytestRuns) };
}

/** The provider, each request of which waits for one of the slots. */
export function limitRequests(provider: ModelProvider, slots: Slots): ModelProvider {
  return {
    description: provider.description,
    complete: (request, signal) => slots.use(() => provider.complete(request, signal), signal),
  };
}
