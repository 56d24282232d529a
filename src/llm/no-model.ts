import type { ModelProvider } from "./provider.js";

/** A provider for runs that must not reach a model (they generate no node): any call is a bug, and says why there is none. */
export function noModel(why: string): ModelProvider {
  return {
    description: "no model",
    complete: () => Promise.reject(new Error(`no model is called here: ${why}`)),
  };
}
