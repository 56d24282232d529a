import { createAppAuth } from "@octokit/auth-app";
import { Octokit } from "@octokit/rest";
import { RpgForgeError } from "../errors.js";
import type { ActionContext } from "./context.js";

/**
 * Who the Action writes to GitHub as. With the rpg-forge App's credentials (the `app-id` and
 * `app-private-key` inputs, from repository secrets) it writes as the App, with installation
 * tokens, so that the user's own workflows run on its pushes and pull requests, which they
 * never do for GITHUB_TOKEN's. An installation token lasts an hour and a run can take longer:
 * `token()` hands out one with at least REFRESH_MARGIN_MS left, minting a new one otherwise.
 */
export interface Credentials {
  kind: "app" | "github-token" | "none";
  token(): Promise<string | undefined>;
}

/** A token handed out must outlive the pushes and writes that follow it. */
const REFRESH_MARGIN_MS = 10 * 60_000;

export function credentialsFor(
  inputs: { githubToken: string; appId: string; appPrivateKey: string },
  context: Pick<ActionContext, "apiUrl" | "repository">,
  clock: () => number = Date.now,
): Credentials {
  if (inputs.appId === "" && inputs.appPrivateKey === "") {
    const token = inputs.githubToken || undefined;
    return { kind: token ? "github-token" : "none", token: () => Promise.resolve(token) };
  }
  if (inputs.appId === "" || inputs.appPrivateKey === "")
    throw new RpgForgeError(
      "APP_CREDENTIALS_INCOMPLETE",
      `the input ${inputs.appId === "" ? "app-id" : "app-private-key"} is empty while ${inputs.appId === "" ? "app-private-key" : "app-id"} is set`,
      { field: inputs.appId === "" ? "app-id" : "app-private-key" },
      "pass both from repository secrets, or neither (then GITHUB_TOKEN writes, and your CI does not run on rpg-forge's pull requests)",
    );
  const privateKey = inputs.appPrivateKey.replace(/\\n/g, "\n");
  const asApp = new Octokit({
    authStrategy: createAppAuth,
    auth: { appId: inputs.appId, privateKey },
    baseUrl: context.apiUrl.replace(/\/+$/, ""),
  });
  let installationId: number | undefined;
  let current: { token: string; expiresAt: number } | undefined;
  return {
    kind: "app",
    async token() {
      try {
        installationId ??= (await asApp.rest.apps.getRepoInstallation({ ...context.repository })).data.id;
        const refresh = !current || current.expiresAt - clock() < REFRESH_MARGIN_MS;
        if (refresh) {
          const minted = (await asApp.auth({ type: "installation", installationId, refresh: true })) as {
            token: string;
            expiresAt: string;
          };
          current = { token: minted.token, expiresAt: Date.parse(minted.expiresAt) };
        }
        return current!.token;
      } catch (error) {
        throw new RpgForgeError(
          "APP_CREDENTIALS_REFUSED",
          `the rpg-forge App could not get a token for ${context.repository.owner}/${context.repository.repo}: ${(error as Error).message}`,
          { field: "app-id" },
          "check that the App is installed on this repository and that app-id and app-private-key are its own",
          { cause: error },
        );
      }
    },
  };
}

/**
 * Puts a token with time left into the inputs before the Action writes (a run that generated
 * for an hour would otherwise push with an expired one), masked in the log.
 */
export async function useFreshToken(
  inputs: { githubToken: string },
  credentials: Credentials,
  mask: (token: string) => void,
): Promise<void> {
  const token = await credentials.token();
  if (token === undefined || token === inputs.githubToken) return;
  mask(token);
  inputs.githubToken = token;
}
