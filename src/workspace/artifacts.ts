import { join } from "node:path";
import { redactSecrets, secretRedactor } from "../redact.js";
import { mkdirNoLinks, writeFileNoFollow } from "./no-links.js";

/**
 * Keeps every prompt, reply, proposed file and test result of a run for post-mortem
 * (seed 003): `.rpg-forge/runs/<run-id>/<node-id>/<step>/<file>`. Steps are numbered
 * in the order they happened, so `ls` tells the node's story.
 */
export class ArtifactStore {
  private readonly steps = new Map<string, number>();

  constructor(
    readonly root: string,
    readonly runId: string,
  ) {}

  /**
   * Saves the files of one step and returns its directory. Contents are redacted (they
   * are the model's and generated code's words, which may quote a secret), and no link
   * on the way is followed (OUTPUT_SYMLINK).
   */
  async save(nodeId: string, step: string, files: Record<string, string | undefined>): Promise<string> {
    const n = (this.steps.get(nodeId) ?? 0) + 1;
    this.steps.set(nodeId, n);
    const rel = join(".rpg-forge", "runs", safe(this.runId), safe(nodeId), `${String(n).padStart(2, "0")}-${safe(step)}`);
    const dir = await mkdirNoLinks(this.root, rel);
    // The environment read once for the step's files: each read of process.env's secrets walks every variable.
    const redact = secretRedactor();
    for (const [name, content] of Object.entries(files)) {
      if (content !== undefined) await writeFileNoFollow(join(dir, safe(name)), redact(content));
    }
    return dir;
  }
}

/** A file of the run as a whole (its report), beside the nodes' folders; returns its path. */
export async function saveRunFile(root: string, runId: string, name: string, content: string): Promise<string> {
  const dir = await mkdirNoLinks(root, join(".rpg-forge", "runs", safe(runId)));
  const path = join(dir, safe(name));
  await writeFileNoFollow(path, redactSecrets(content));
  return path;
}

/** Node ids are free text; a path segment must not be able to climb out or hide. */
function safe(segment: string): string {
  const cleaned = segment.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return cleaned === "" ? "_" : cleaned.slice(0, 120);
}
