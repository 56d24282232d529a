import { describe, expect, it } from "vitest";

import { parseCommand } from "../../src/app/command.js";

describe("parseCommand", () => {
  it("reads the first line only: name, then node ids separated by spaces or commas", () => {
    expect(parseCommand("  /rpg RETRY a.b,c  d\n/rpg revise x", "/rpg")).toEqual({ name: "retry", nodes: ["a.b", "c", "d"] });
    expect(parseCommand("/rpg revise a\r\nthe note", "/rpg")).toEqual({ name: "revise", nodes: ["a"] });
  });

  it("is not a command unless the first word is the prefix itself", () => {
    for (const body of ["", "hello", "/rpgretry", "x /rpg retry", "\n/rpg retry"]) expect(parseCommand(body, "/rpg")).toBeUndefined();
    expect(parseCommand("/forge status", "/forge")).toEqual({ name: "status" });
  });

  it("turns the bare prefix, an unknown name and a malformed command into help with the problem", () => {
    expect(parseCommand("/rpg", "/rpg")).toEqual({ name: "help" });
    expect(parseCommand("/rpg `rm`", "/rpg")).toEqual({ name: "help", problem: "there is no command `'rm'`" });
    expect(parseCommand("/rpg revise", "/rpg")).toEqual({ name: "help", problem: "`revise` needs the ids of the nodes to revise" });
    expect(parseCommand("/rpg retry a\u001b[2Jb", "/rpg")).toEqual({ name: "help", problem: "node ids cannot hold control characters" });
  });
});
