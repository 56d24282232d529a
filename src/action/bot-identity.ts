/** Who commits in the runner when the workflow set no identity: GitHub's own bot, as actions do. */
const BOT = { name: "github-actions[bot]", email: "41898282+github-actions[bot]@users.noreply.github.com" };

export function useBotIdentity(env: NodeJS.ProcessEnv = process.env): void {
  env.GIT_AUTHOR_NAME ??= BOT.name;
  env.GIT_AUTHOR_EMAIL ??= BOT.email;
  env.GIT_COMMITTER_NAME ??= BOT.name;
  env.GIT_COMMITTER_EMAIL ??= BOT.email;
}
