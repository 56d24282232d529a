/** Milliseconds, fractional: Date.now() rounds to whole milliseconds, too coarse for a 50-node plan. */
export const now = (): number => performance.now();

export interface Samples {
  median: number;
  min: number;
  max: number;
  runs: number;
}

/**
 * Runs `fn` `warmup` times unmeasured (so the JIT has compiled the hot paths and the
 * first-run module loading is out of the way), then `runs` times measured. The median
 * is the figure we report: one GC pause must not decide a verdict.
 */
export function timeSync<T>(fn: () => T, { warmup, runs }: { warmup: number; runs: number }, check?: (result: T) => void): Samples {
  for (let i = 0; i < warmup; i++) check?.(fn());
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = now();
    const result = fn();
    times.push(now() - start);
    check?.(result);
  }
  return summarize(times);
}

export async function timeAsync(fn: () => Promise<unknown>, { warmup, runs }: { warmup: number; runs: number }): Promise<Samples> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = now();
    await fn();
    times.push(now() - start);
  }
  return summarize(times);
}

export function summarize(times: readonly number[]): Samples {
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0] ?? NaN, max: sorted[sorted.length - 1] ?? NaN, runs: sorted.length };
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "-";
  if (ms >= 60_000) return `${(ms / 60_000).toFixed(1)} min`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return bytes >= 1e3 ? `${Math.round(bytes / 1e3)} KB` : `${bytes} B`;
}

export function formatTarget(ms: number): string {
  return ms >= 1000 ? `< ${ms / 1000} s` : `< ${ms} ms`;
}

export interface Row {
  figure: string;
  /** The measured value in ms, or a text for checks that are not timings. */
  value: Samples | string;
  /** Upper bound in ms, or the expected text for checks. */
  target: number | string;
  verdict: "ok" | "SLOW" | "FAIL" | "";
}

/** A timing row; missing the target is printed as SLOW, never an exit code: timings vary by machine. */
export function timingRow(figure: string, samples: Samples, targetMs: number): Row {
  return { figure, value: samples, target: targetMs, verdict: samples.median < targetMs ? "ok" : "SLOW" };
}

export function renderTable(rows: readonly Row[]): string {
  const cells = rows.map((r) => [
    r.figure,
    typeof r.value === "string" ? r.value : formatMs(r.value.median),
    typeof r.value === "string" ? "" : r.value.runs > 1 ? `${formatMs(r.value.min)} – ${formatMs(r.value.max)}, n=${r.value.runs}` : "n=1",
    typeof r.target === "string" ? r.target : formatTarget(r.target),
    r.verdict,
  ]);
  const header = ["figure", "median", "range", "target", ""];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string =>
    c
      .map((cell, i) => (i === 1 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}
