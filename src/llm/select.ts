import { access, constants, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { RpgForgeError } from "../errors.js";
import { createRecordingProvider, createReplayProvider, loadCassette } from "./cassette.js";
import { resolveModelConfig } from "./config.js";
import { createOpenAiProvider } from "./openai-provider.js";
import type { ModelProvider } from "./provider.js";

export interface ProviderChoice {
  /** Answer from this cassette instead of a live endpoint. */
  replay?: string | undefined;
  /** With replay: also require each prompt's hash to match the recording. */
  replayStrict?: boolean | undefined;
  /** Record every exchange with the live endpoint to this cassette. */
  record?: string | undefined;
  model?: string | undefined;
}

/**
 * The provider the flags and environment ask for. Fails before any work is done
 * when no model is configured, so a run never starts that cannot finish.
 */
export async function selectProvider(
  choice: ProviderChoice,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ provider: ModelProvider; model: string }> {
  if (choice.replay) {
    const cassette = await loadCassette(choice.replay);
    return { provider: createReplayProvider(cassette, { strict: choice.replayStrict === true }), model: `replay of ${choice.replay}` };
  }
  const config = resolveModelConfig(env, { model: choice.model });
  if (choice.record) await checkRecordTarget(choice.record);
  const live = createOpenAiProvider(config);
  return { provider: choice.record ? createRecordingProvider(live, choice.record) : live, model: config.model };
}

/**
 * A cassette that cannot be appended to would fail the run at its first reply, after the output was
 * set up; checked here instead, without writing: a directory, or a file (or the folder it would go
 * in) this user may not write.
 */
async function checkRecordTarget(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  const refuse = (why: string, cause?: unknown): RpgForgeError =>
    new RpgForgeError(
      "CASSETTE_WRITE_FAILED",
      `cannot record to the cassette: ${why}`,
      { file },
      "choose a file you can write to for --record",
      {
        cause,
      },
    );
  if (info?.isDirectory()) throw refuse("it is a directory, not a file");
  // A missing folder is made at the first append; only one that exists can be checked now.
  const target = info ? file : dirname(file);
  if (!info && (await stat(target).catch(() => undefined)) === undefined) return;
  try {
    await access(target, constants.W_OK);
  } catch (error) {
    throw refuse(`${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, error);
  }
}
