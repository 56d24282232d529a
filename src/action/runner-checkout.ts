import { rpgNameOf } from "../engine/history.js";
import type { RemoteAuth } from "../workspace/remote.js";
import { useBotIdentity } from "./bot-identity.js";
import type { ActionContext, RpgAtHand } from "./context.js";
import type { ActionInputs } from "./inputs.js";

/** The job's checkout as every writing mode uses it: where it is, how it pushes, and the name its branches are made of. */
export interface RunnerCheckout {
  dir: string;
  auth: RemoteAuth | undefined;
  rpgName: string;
}

/** The checkout, with git's identity set to GitHub's bot when the workflow set none. */
export function runnerCheckout(inputs: ActionInputs, context: ActionContext, at: RpgAtHand): RunnerCheckout {
  useBotIdentity();
  const token = inputs.githubToken;
  return {
    dir: context.workspace,
    auth: token ? { serverUrl: context.serverUrl, token } : undefined,
    rpgName: rpgNameOf(at.rpg, at.rpgFile),
  };
}
