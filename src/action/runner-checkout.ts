import { rpgNameOf } from "../record/branch-names.js";
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

/** How git pushes with the token the inputs hold now. */
export function remoteAuthOf(inputs: Pick<ActionInputs, "githubToken">, context: ActionContext): RemoteAuth | undefined {
  return inputs.githubToken ? { serverUrl: context.serverUrl, token: inputs.githubToken } : undefined;
}

/** The checkout, with git's identity set to GitHub's bot when the workflow set none. */
export function runnerCheckout(inputs: ActionInputs, context: ActionContext, at: RpgAtHand): RunnerCheckout {
  useBotIdentity();
  return {
    dir: context.workspace,
    auth: remoteAuthOf(inputs, context),
    rpgName: rpgNameOf(at.rpg, at.rpgFile),
  };
}
