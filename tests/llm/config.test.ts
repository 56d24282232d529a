import { describe, expect, it } from "vitest";
import { RpgForgeError } from "../../src/errors.js";
import { PLACEHOLDER_API_KEY, resolveModelConfig } from "../../src/llm/config.js";

function thrown(fn: () => unknown): RpgForgeError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RpgForgeError);
    return error as RpgForgeError;
  }
  throw new Error("expected a throw");
}

describe("resolveModelConfig", () => {
  it("uses OPENAI_API_KEY with the default model and OpenAI's endpoint", () => {
    expect(resolveModelConfig({ OPENAI_API_KEY: "sk-abc" })).toEqual({ apiKey: "sk-abc", model: "gpt-4o-mini" });
  });

  it("takes the model from the flag, then RPG_FORGE_MODEL", () => {
    const env = { OPENAI_API_KEY: "sk-abc", RPG_FORGE_MODEL: "gpt-4.1" };
    expect(resolveModelConfig(env).model).toBe("gpt-4.1");
    expect(resolveModelConfig(env, { model: "o4-mini" }).model).toBe("o4-mini");
  });

  it("accepts a base URL without a key, for local servers that need none", () => {
    expect(resolveModelConfig({ OPENAI_BASE_URL: "http://localhost:11434/v1" }, { model: "qwen2.5-coder" })).toEqual({
      apiKey: PLACEHOLDER_API_KEY,
      baseURL: "http://localhost:11434/v1",
      model: "qwen2.5-coder",
    });
  });

  it("throws MODEL_NOT_CONFIGURED naming OPENAI_API_KEY, OPENAI_BASE_URL and --replay when neither is set", () => {
    const error = thrown(() => resolveModelConfig({ OPENAI_API_KEY: "", OPENAI_BASE_URL: "  " }));
    expect(error.code).toBe("MODEL_NOT_CONFIGURED");
    expect(error.message).toContain("OPENAI_API_KEY");
    expect(error.message).toContain("OPENAI_BASE_URL");
    expect(error.message).toContain("--replay <cassette>");
  });

  it("throws MODEL_NOT_CONFIGURED for a base URL that is not http(s)", () => {
    const error = thrown(() => resolveModelConfig({ OPENAI_API_KEY: "sk-abc", OPENAI_BASE_URL: "localhost:8000" }));
    expect(error.code).toBe("MODEL_NOT_CONFIGURED");
    expect(error.at.field).toBe("OPENAI_BASE_URL");
  });

  it("trims a key read from a file with its newline", () => {
    expect(resolveModelConfig({ OPENAI_API_KEY: "sk-abc\n" }).apiKey).toBe("sk-abc");
  });
});
