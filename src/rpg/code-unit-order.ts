/**
 * Strings in UTF-16 code-unit order, as Python's sorted() gives them: the same on every machine. Not localeCompare,
 * whose order is the machine's locale's (Estonian puts z before t, Czech ch after h), so what is written or asked in
 * that order would change with LANG.
 */
export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
