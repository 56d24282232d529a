import { askStructured, type StructuredResult } from "../llm/structured.js";
import { askWithTools, type ToolBox, type ToolLoopResult } from "../llm/tool-loop.js";
import { addUsage, ZERO_USAGE, type ModelMessage, type TokenUsage } from "../llm/provider.js";
import type { DIAGNOSIS_KIND } from "../llm/requests/diagnosis.js";
import type { FIX_KIND, IMPLEMENTATION_KIND } from "../llm/requests/implementation.js";
import type { INTEGRATION_TESTS_KIND } from "../llm/requests/integration-tests.js";
import type { REVIEW_KIND } from "../llm/requests/review.js";
import type { TESTS_KIND } from "../llm/requests/tests.js";
import { estimateTokens, redactMessages } from "../llm/redact.js";
import type { TddSetup } from "./tdd-setup.js";

export type RequestKind =
  | typeof TESTS_KIND
  | typeof IMPLEMENTATION_KIND
  | typeof FIX_KIND
  | typeof DIAGNOSIS_KIND
  | typeof INTEGRATION_TESTS_KIND
  | typeof REVIEW_KIND;

/** What a kind's reply reads as once accepted. */
export type ReplyOf<K extends RequestKind> = ReturnType<K["schema"]["parse"]>;

/** A request that no retry can answer (a cassette without the reply): the node fails at once, naming it. */
export class FinalRefusal extends Error {}

/**
 * One node's conversation with the model: every request redacted, held to the token
 * budget, keyed for cassettes, and kept as an artifact with what came back. The
 * tokens spent add up here, for the node's outcome.
 */
export class NodeModel {
  private spent: TokenUsage = { ...ZERO_USAGE };

  constructor(
    private readonly setup: TddSetup,
    private readonly nodeId: string,
    private readonly signal: AbortSignal,
  ) {}

  get usage(): TokenUsage {
    return this.spent;
  }

  /** Whether a prompt fits the budget, by the estimate `ask` holds it to. */
  fits(raw: ModelMessage[]): boolean {
    return estimateTokens(redactMessages(raw)) <= this.setup.tokenBudget;
  }

  /** One structured request. A reply no retry can give throws FinalRefusal; any other refusal is a result. */
  async ask<K extends RequestKind>(kind: K, raw: ModelMessage[], temperature?: number): Promise<StructuredResult<ReplyOf<K>>> {
    return this.request(kind, raw, temperature);
  }

  /**
   * One structured request that offers read-only tools (decision 0030): the model may call them before it answers.
   * `toolsRefused` in the result: the endpoint takes no tools, and the caller asks again without them.
   */
  async askWithTools<K extends RequestKind>(kind: K, raw: ModelMessage[], tools: ToolBox): Promise<ToolLoopResult<ReplyOf<K>>> {
    return this.request(kind, raw, undefined, tools) as Promise<ToolLoopResult<ReplyOf<K>>>;
  }

  private async request<K extends RequestKind>(
    kind: K,
    raw: ModelMessage[],
    temperature?: number,
    tools?: ToolBox,
  ): Promise<StructuredResult<ReplyOf<K>> & { toolsRefused?: true }> {
    if (this.signal.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new Error("interrupted");
    const messages = redactMessages(raw);
    const tokens = estimateTokens(messages);
    if (tokens > this.setup.tokenBudget) {
      return {
        ok: false,
        reason: `the ${kind.kind} prompt needs about ${tokens} tokens, over the budget of ${this.setup.tokenBudget}`,
        usage: { ...ZERO_USAGE },
        exchanges: [],
      };
    }
    const { keys, provider } = this.setup;
    const key = keys.next(this.nodeId, kind.kind);
    const request = {
      key,
      schemaName: kind.schemaName,
      jsonSchema: this.setup.jsonSchemaOf(kind.schema),
      messages,
      ...(temperature === undefined ? {} : { temperature }),
    };
    // A kind may read replies more leniently than it asks (a field recorded cassettes lack).
    const accepts = "accepts" in kind ? kind.accepts : kind.schema;
    const options = { nextAttempt: () => keys.next(this.nodeId, kind.kind).attempt, signal: this.signal };
    const result: StructuredResult<unknown> & { toolsRefused?: true } = tools
      ? await askWithTools(provider, request, accepts as never, tools, options)
      : await askStructured(provider, request, accepts as never, options);
    this.spent = addUsage(this.spent, result.usage);
    await this.setup.artifacts.save(this.nodeId, `${kind.kind}-${key.attempt}`, {
      "exchanges.json": JSON.stringify(result.exchanges, null, 2),
      "accepted.json": result.ok ? JSON.stringify(result.value, null, 2) : undefined,
      "refused.txt": result.ok ? undefined : result.reason,
    });
    if (!result.ok && result.final) throw new FinalRefusal(result.reason);
    return result as StructuredResult<ReplyOf<K>>;
  }
}
