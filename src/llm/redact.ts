import { secretRedactor } from "../redact.js";
import type { ModelMessage } from "./provider.js";

export { redactSecrets } from "../redact.js";

/** A prompt without secrets: it is sent to a third party and kept as an artifact. */
export function redactMessages(messages: readonly ModelMessage[], env: NodeJS.ProcessEnv = process.env): ModelMessage[] {
  // The environment read once for all of them: each read of its secrets walks every variable.
  const redact = secretRedactor(env);
  return messages.map((m) => ({ ...m, content: redact(m.content) }));
}

/** A rough count (4 characters a token) that errs high for code; enough to keep a prompt under a budget. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(messages.reduce((sum, m) => sum + m.content.length + 16, 0) / 4);
}
