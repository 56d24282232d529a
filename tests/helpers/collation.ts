/**
 * Runs `use` as on a machine whose locale collates by `locale`'s rules: String.prototype.localeCompare, which without a
 * locale follows the machine's (LANG), compares as that locale does until `use` settles. In Estonian "z" comes before
 * "t"; in Czech "ch" after "h". What rpg-forge writes must not change with it.
 */
export async function inLocale<T>(locale: string, use: () => T | Promise<T>): Promise<T> {
  const own = Object.getOwnPropertyDescriptor(String.prototype, "localeCompare")!;
  const collator = new Intl.Collator(locale);
  Object.defineProperty(String.prototype, "localeCompare", {
    ...own,
    value(this: string, that: string) {
      return collator.compare(this, that);
    },
  });
  try {
    return await use();
  } finally {
    Object.defineProperty(String.prototype, "localeCompare", own);
  }
}
