import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface EventExamples {
  name: string;
  examples: Record<string, unknown>[];
}

let parsed: EventExamples[] | undefined;

/**
 * A copy of GitHub's own example payload of an event (@octokit/webhooks-examples), the first with `action` when one is
 * given. The file (4.3 MB) is parsed once a worker: parsed again for every payload, it was about 3 CPU-s of a run.
 */
export function webhookExample(event: string, action?: string): Record<string, unknown> {
  const file = fileURLToPath(new URL("../../node_modules/@octokit/webhooks-examples/api.github.com/index.json", import.meta.url));
  parsed ??= JSON.parse(readFileSync(file, "utf8")) as EventExamples[];
  const found = parsed.find((e) => e.name === event)?.examples.find((e) => action === undefined || e.action === action);
  if (!found) throw new Error(`@octokit/webhooks-examples has no ${event}${action ? `.${action}` : ""} example`);
  return structuredClone(found);
}
