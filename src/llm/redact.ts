import type { ModelMessage } from "./provider.js";

/** Token formats worth catching even when they are not in our environment (pasted into a docstring, printed by a test). */
const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}\b/g,
];

const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;

/**
 * Removes secrets from text bound for a model: the values of this process's
 * secret-looking environment variables, wherever they appear, and well-known token
 * formats. A prompt is sent to a third party and kept as an artifact, so it must
 * never carry one.
 */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 8 || !SECRET_NAME.test(name)) continue;
    out = out.split(value).join(`[redacted ${name}]`);
  }
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, "[redacted token]");
  return out;
}

export function redactMessages(messages: readonly ModelMessage[], env: NodeJS.ProcessEnv = process.env): ModelMessage[] {
  return messages.map((m) => ({ ...m, content: redactSecrets(m.content, env) }));
}

/** A rough count (4 characters a token) that errs high for code; enough to keep a prompt under a budget. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(messages.reduce((sum, m) => sum + m.content.length + 16, 0) / 4);
}
