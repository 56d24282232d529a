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
  const live = createOpenAiProvider(config);
  return { provider: choice.record ? createRecordingProvider(live, choice.record) : live, model: config.model };
}
