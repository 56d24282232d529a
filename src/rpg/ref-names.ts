/** Ids and names are free text; a git ref allows a narrower set (git check-ref-format). */
export function refSafe(text: string): string {
  const safe = text
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[-.]+|[-.]+$/g, "")
    .replace(/\.lock$/, "-lock");
  return safe === "" ? "unnamed" : safe;
}
