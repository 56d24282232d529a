/**
 * The one redactor for text that leaves rpg-forge's hands: prompts, the output of
 * generated code, the checkpoint, artifacts, the report, comments and job summaries.
 * In the foundation so that every layer can use it.
 */

/** Token formats worth catching even when they are not in our environment (pasted into a docstring, printed by a test). */
const SECRET_PATTERNS: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}\b/g,
];

const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;
// Shorter values (flags, "true", a port) would blank out ordinary words.
const MIN_SECRET_LENGTH = 8;

type Secret = { name: string; forms: string[] };

/** The last environment read and what was found in it: most calls find process.env as the last one did. */
let last: { env: NodeJS.ProcessEnv; found: [string, string][]; secrets: readonly Secret[] } | undefined;

/**
 * The values of secret-looking variables, longest first (a value that holds another is
 * replaced whole), each with the forms it takes once escaped in XML (a JUnit report) or
 * JSON (a test that dumps it), so that an escaped `&` or `"` does not let it through.
 */
function secretsOf(env: NodeJS.ProcessEnv): readonly Secret[] {
  // Only the names are read for every variable: reading each value of process.env, escaping and sorting again on every
  // call was 1.6 ms of a node's CPU (issue 16). The secret-looking ones are always read, so a change is always seen.
  const found: [string, string][] = [];
  for (const name of Object.keys(env)) {
    if (!SECRET_NAME.test(name)) continue;
    const value = env[name];
    if (value && value.length >= MIN_SECRET_LENGTH) found.push([name, value]);
  }
  if (last?.env === env && sameEntries(last.found, found)) return last.secrets;
  const secrets = found.map(([name, value]): Secret => {
    const xml = value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
    const json = JSON.stringify(value).slice(1, -1);
    return { name, forms: [...new Set([value, xml, json])] };
  });
  secrets.sort((a, b) => b.forms[0]!.length - a.forms[0]!.length);
  last = { env, found, secrets };
  return secrets;
}

function sameEntries(a: readonly [string, string][], b: readonly [string, string][]): boolean {
  return a.length === b.length && a.every(([name, value], i) => b[i]![0] === name && b[i]![1] === value);
}

function redactWith(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const { name, forms } of secrets) {
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(`[redacted ${name}]`);
  }
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, "[redacted token]");
  return out;
}

/**
 * Removes secrets from text: the values of this process's secret-looking environment
 * variables (OPENAI_API_KEY, GITHUB_TOKEN, INPUT_GITHUB-TOKEN, ...), wherever they
 * appear, and well-known token formats. Generated code can read them (a prompt quotes
 * one, a test prints /proc/<parent>/environ), and whatever it prints ends up in
 * files we commit and comments we post.
 */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return redactWith(text, secretsOf(env));
}

/** `redactSecrets` with the environment read once, for redacting many texts. */
export function secretRedactor(env: NodeJS.ProcessEnv = process.env): (text: string) => string {
  const secrets = secretsOf(env);
  return (text) => redactWith(text, secrets);
}

/** `value` with every string in it (object keys aside) redacted: for JSON-shaped data such as the checkpoint. */
export function redactDeep<T>(value: T, env: NodeJS.ProcessEnv = process.env): T {
  const redact = secretRedactor(env);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
    }
    return v;
  };
  return walk(value) as T;
}
