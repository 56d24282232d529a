/**
 * The only variables generated code may see from our environment. An allowlist, not a
 * denylist: the runner's environment holds GITHUB_TOKEN, OPENAI_API_KEY, ACTIONS_* and
 * whatever else CI injects, and a denylist would miss the next one.
 */
const PASSED_THROUGH = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"] as const;

/**
 * An allowlisted environment for untrusted code: PATH, LANG, LC_ALL, LC_CTYPE, TZ only
 * from `source`, plus HOME=home, TMPDIR=tmp and fixed Python settings. Never passes
 * anything else (so no GITHUB_TOKEN, OPENAI_API_KEY, *TOKEN*, *KEY*, *SECRET*, ACTIONS_*).
 */
export function scrubbedEnv(source: NodeJS.ProcessEnv, home: string, tmp: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    TMPDIR: tmp,
    // No __pycache__ written into the package we are about to commit.
    PYTHONDONTWRITEBYTECODE: "1",
    // Fixed hash seed and UTF-8 I/O, so a rerun of the same code behaves the same.
    PYTHONHASHSEED: "0",
    PYTHONUTF8: "1",
  };
}
