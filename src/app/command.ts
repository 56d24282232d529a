import { hasControlCharacter } from "../rpg/id-characters.js";

/** A comment command: `<prefix> <name> [args]` on the comment's first line. */
export type Command =
  { name: "retry"; nodes: string[] } | { name: "revise"; nodes: string[] } | { name: "status" } | { name: "help"; problem?: string };

export const COMMAND_NAMES = ["retry", "revise", "status", "help"] as const;

/**
 * The command on the first line of a comment, or undefined when the comment is not one.
 * Only the first line counts: the rest is the person's note (a revise's reason), never
 * parsed. An unknown name or a malformed command is a `help` with the problem stated.
 */
export function parseCommand(body: string, prefix: string): Command | undefined {
  const firstLine = body.split(/\r?\n/, 1)[0]!.trim();
  const words = firstLine.split(/[\s,]+/).filter(Boolean);
  if (words[0] !== prefix) return undefined;
  const [name = "help", ...args] = words.slice(1);
  const bad = args.find((a) => hasControlCharacter(a));
  if (bad !== undefined) return { name: "help", problem: "node ids cannot hold control characters" };
  switch (name.toLowerCase()) {
    case "retry":
      return { name: "retry", nodes: args };
    case "revise":
      return args.length > 0 ? { name: "revise", nodes: args } : { name: "help", problem: "`revise` needs the ids of the nodes to revise" };
    case "status":
      return { name: "status" };
    case "help":
      return { name: "help" };
    default:
      return { name: "help", problem: `there is no command \`${name.replace(/`/g, "'").slice(0, 40)}\`` };
  }
}
