import { describe, expect, it } from "vitest";
import type { ModelProvider, ModelRequest } from "../../src/llm/provider.js";
import { limitRequests, pipelineFor } from "../../src/engine/pipelining.js";
import { Slots } from "../../src/engine/slots.js";

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

/** Work that records how many of its kind ran at once, at most. */
function gauge(): { work: (ms?: number) => Promise<number>; max: () => number } {
  let now = 0;
  let most = 0;
  let n = 0;
  return {
    work: async (ms = 10) => {
      const me = n++;
      now++;
      most = Math.max(most, now);
      await tick(ms);
      now--;
      return me;
    },
    max: () => most,
  };
}

describe("Slots", () => {
  it("lets as many run at once as it has slots, first come first served", async () => {
    const slots = new Slots(2);
    const { work, max } = gauge();
    const order: number[] = [];
    await Promise.all(Array.from({ length: 7 }, (_, i) => slots.use(async () => (await work(), order.push(i)))));
    expect(max()).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(slots.taken).toBe(0);
  });

  it("gives a slot back when the work throws", async () => {
    const slots = new Slots(1);
    await expect(slots.use(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await slots.use(async () => "next")).toBe("next");
  });

  it("stops a waiter's wait when its signal aborts: the work runs at once, holding no slot", async () => {
    const slots = new Slots(1);
    let release!: () => void;
    const holder = slots.use(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const waiter = slots.use(async () => `ran with ${slots.taken} taken`, controller.signal);
    await tick();
    controller.abort(new Error("interrupted"));
    expect(await waiter).toBe("ran with 1 taken");
    release();
    await holder;
    expect(slots.taken).toBe(0);
    // The aborted waiter left the queue: the next one gets the free slot.
    expect(await slots.use(async () => slots.taken)).toBe(1);
  });

  it("refuses a count that is not a whole number of at least 1", () => {
    expect(() => new Slots(0)).toThrow(RangeError);
    expect(() => new Slots(1.5)).toThrow(RangeError);
  });
});

describe("pipelineFor", () => {
  it("keeps one node at a time, and no other limit, at a concurrency of 1", () => {
    expect(pipelineFor(1, 8)).toEqual({ nodesInFlight: 1 });
  });

  it("above 1, has the concurrency's requests in flight, a pytest run per core, and that many more nodes", () => {
    const pipeline = pipelineFor(4, 2);
    expect(pipeline.nodesInFlight).toBe(6);
    expect(pipeline.requests).toBeInstanceOf(Slots);
    expect(pipeline.pytestRuns).toBeInstanceOf(Slots);
  });
});

describe("limitRequests", () => {
  it("sends at most the slots' number of requests at once, whoever asks", async () => {
    const { work, max } = gauge();
    const provider: ModelProvider = {
      description: "fake",
      complete: async () => ({ ok: true, content: String(await work()) }) as Awaited<ReturnType<ModelProvider["complete"]>>,
    };
    const limited = limitRequests(provider, new Slots(3));
    expect(limited.description).toBe("fake");
    const request = { messages: [], schemaName: "x" } as unknown as ModelRequest;
    await Promise.all(Array.from({ length: 10 }, () => limited.complete(request)));
    expect(max()).toBe(3);
  });
});
