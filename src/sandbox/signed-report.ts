import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** What rpg-forge's verdict plugin saw of one test: its worst phase. */
export const TestOutcome = z.enum(["passed", "failed", "error", "skipped"]);
export type TestOutcome = z.infer<typeof TestOutcome>;

const RunRecord = z.object({
  exitstatus: z.number().int(),
  tests: z.record(z.string(), TestOutcome),
  collect_errors: z.array(z.string()),
});

const SignedPayload = RunRecord.extend({
  junit: z.string().nullable(),
  coverage: z.unknown().optional(),
  variants: z.array(RunRecord.extend({ spawned: z.boolean() })).optional(),
});

/** One run's record of several made in one interpreter (a node's mutants): what a gate's report says of its one run. */
export interface VariantRecord {
  exitStatus: number;
  outcomes: Map<string, TestOutcome>;
  collectErrors: string[];
  /** Whether the session's tests started a process: one that imports the module from disk, never the mutant. */
  startedProcess: boolean;
}

/** The gate's own record of a pytest run, when it arrived whole and correctly signed. */
export type SignedReport =
  | {
      authentic: true;
      exitStatus: number;
      /** pytest node id → outcome, as the verdict plugin recorded them. */
      outcomes: Map<string, TestOutcome>;
      /** Node ids of collectors (test modules) that failed to collect. */
      collectErrors: string[];
      /** pytest's JUnit report as it was right after pytest wrote it. */
      junitXml: string | undefined;
      /**
       * The arcs coverage.py recorded in the measured file, on a coverage run only (BootstrapSettings.coverFile), unchecked:
       * src/sandbox/coverage.ts parses it. Signed like the rest, yet measured inside the package's own interpreter,
       * so it is a figure for people and never evidence (decision 0023).
       */
      coverage?: unknown;
      /** On a mutants' run only (GateVariant.mutantsOf): each mutant's run, in the order the sources were given. */
      variants?: VariantRecord[];
    }
  | { authentic: false; problem: string };

/** The length of a run's key: what the gate reads first from its secret pipe. */
export const REPORT_KEY_BYTES = 32;

/** The most of pytest's JUnit report the signed report carries. */
export const MAX_JUNIT_BYTES = 16 * 1024 * 1024;
/** The signed report carries the JUnit report as escaped JSON (up to six bytes a byte), the outcomes and the signature. */
export const MAX_SIGNED_REPORT_BYTES = 6 * MAX_JUNIT_BYTES + 4 * 1024 * 1024;

/** A fresh key per run: the sandboxed interpreter reads it once from a pipe and keeps it only in memory. */
export function newReportKey(): Buffer {
  return randomBytes(REPORT_KEY_BYTES);
}

/**
 * Checks what arrived on the report pipe: `<hex HMAC-SHA256>\n<JSON>` and nothing else.
 * Anything more (a second document written by the tests), less (the run was cut short)
 * or different (a forged one) is not a report.
 */
export function verifySignedReport(data: Buffer, key: Buffer): SignedReport {
  if (data.length === 0) return { authentic: false, problem: "pytest ended without rpg-forge's signed report (it was cut short)" };
  const newline = data.indexOf(0x0a);
  const mac = newline === 64 ? Buffer.from(data.subarray(0, 64).toString("ascii"), "hex") : Buffer.alloc(0);
  const payload = data.subarray(newline + 1);
  const expected = createHmac("sha256", key).update(payload).digest();
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
    return { authentic: false, problem: "the report of the run does not carry rpg-forge's signature (something else wrote to it)" };
  }
  let parsed: z.infer<typeof SignedPayload>;
  try {
    parsed = SignedPayload.parse(JSON.parse(payload.toString("ascii")));
  } catch {
    return { authentic: false, problem: "the signed report of the run is malformed" };
  }
  return {
    authentic: true,
    exitStatus: parsed.exitstatus,
    outcomes: new Map(Object.entries(parsed.tests)),
    collectErrors: parsed.collect_errors,
    junitXml: parsed.junit ?? undefined,
    ...(parsed.coverage === undefined ? {} : { coverage: parsed.coverage }),
    ...(parsed.variants === undefined
      ? {}
      : {
          variants: parsed.variants.map((v) => ({
            exitStatus: v.exitstatus,
            outcomes: new Map(Object.entries(v.tests)),
            collectErrors: v.collect_errors,
            startedProcess: v.spawned,
          })),
        }),
  };
}
