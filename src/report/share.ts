/** "83%": a part of a whole, rounded, as every report line writes it; "–" when the whole is nothing. */
export function percentOf(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : "–";
}

/** "5 of 6 (83%)"; "–" when the whole is nothing. */
export function partOf(part: number, whole: number): string {
  return whole > 0 ? `${part} of ${whole} (${percentOf(part, whole)})` : "–";
}
