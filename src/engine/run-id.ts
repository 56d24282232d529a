import { createHash } from "node:crypto";

/** Hash of the RPG text: ties a checkpoint and a run to the exact input. */
export function rpgHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * A run id a person can read and sort: when it started and what it ran on,
 * e.g. 20261122T204500Z-1a2b3c4d (seed 003's deterministic run ids).
 */
export function makeRunId(startedAt: Date, rpgSha256: string): string {
  const stamp = startedAt
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${rpgSha256.slice(0, 8)}`;
}
