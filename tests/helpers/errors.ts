import { expect } from "vitest";
import { RpgForgeError } from "../../src/errors.js";

/** The RpgForgeError a promise rejects with; fails the test if it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<RpgForgeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpgForgeError);
  return error as RpgForgeError;
}
