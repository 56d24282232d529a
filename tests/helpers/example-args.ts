/** `rpg-forge generate` of the shipped example into `out`, answered offline from its cassette: what the README runs. */
export function exampleGenerateArgs(out: string): string[] {
  return ["generate", "examples/statkit/rpg.json", "--out", out, "--replay", "examples/statkit/cassette.jsonl"];
}
