import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BatchedWriter } from "../../src/workspace/batched-writer.js";
import { PackageFiles } from "../../src/workspace/package-files.js";
import { useTempDirs } from "../helpers/temp-dir.js";

const tempDir = useTempDirs();

function put(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}
const read = (root: string, rel: string): string | undefined =>
  existsSync(join(root, rel)) ? readFileSync(join(root, rel), "utf8") : undefined;

/** A work tree and an output; node n's files are src/pkg/<file>.py and tests/test_<n>.py. */
async function setup(files: Record<string, string>, deps: Record<string, string[]> = {}, batchSize?: number) {
  const work = tempDir();
  const out = tempDir();
  const writer = new BatchedWriter({
    work: await PackageFiles.open(work),
    output: await PackageFiles.open(out),
    filesOf: (id) => [`src/pkg/${files[id]}.py`, `tests/test_${id}.py`],
    dependsOn: (id) => deps[id] ?? [],
    ...(batchSize ? { batchSize } : {}),
  });
  /** What the TDD loop would leave in the work tree for a passed node. */
  const pass = (id: string): void => {
    const rel = `src/pkg/${files[id]}.py`;
    put(work, rel, `${read(work, rel) ?? ""}def ${id}():\n    return 1\n`);
    put(work, `tests/test_${id}.py`, `def test_${id}():\n    assert True\n`);
  };
  return { work, out, writer, pass };
}

describe("BatchedWriter", () => {
  it("writes nothing for the first four passed nodes and all five nodes' files once the fifth is staged", async () => {
    const ids = ["a", "b", "c", "d", "e"];
    const { work, out, writer, pass } = await setup(Object.fromEntries(ids.map((id) => [id, id])));
    for (const id of ids.slice(0, 4)) {
      pass(id);
      expect(writer.stage(id)).toBe(false);
    }
    expect(readdirSync(out)).toEqual([]);
    pass("e");
    expect(writer.stage("e")).toBe(true);
    const result = await writer.flush();
    expect(result).toEqual({
      written: ids,
      files: ids.flatMap((id) => [`src/pkg/${id}.py`, `tests/test_${id}.py`]),
      failed: [],
      blocked: [],
    });
    for (const id of ids) expect(read(out, `src/pkg/${id}.py`)).toBe(read(work, `src/pkg/${id}.py`));
    expect(writer.pending).toEqual([]);
    expect(readdirSync(join(out, "src/pkg")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("writes a file shared by several nodes once, and leaves unchanged files alone", async () => {
    const { out, writer, pass } = await setup({ a: "core", b: "core" });
    pass("a");
    pass("b");
    writer.stage("a");
    writer.stage("b");
    expect((await writer.flush()).files).toEqual(["src/pkg/core.py", "tests/test_a.py", "tests/test_b.py"]);
    expect(read(out, "src/pkg/core.py")).toBe("def a():\n    return 1\ndef b():\n    return 1\n");
    writer.stage("a");
    expect(await writer.flush()).toMatchObject({ written: ["a"], files: [] });
  });

  it("fails a node whose file cannot be written, with its dependents and file mates, and keeps the previous files", async () => {
    // c imports a; d shares a's module; e stands alone.
    const { work, out, writer, pass } = await setup({ a: "broken/a", c: "c", d: "broken/a", e: "e" }, { c: ["a"] });
    put(out, "src/pkg/broken", "a file where the folder of a's module should be\n");
    put(out, "tests/test_d.py", "# the previous tests of d\n");
    for (const id of ["a", "c", "d", "e"]) {
      pass(id);
      writer.stage(id);
    }
    const result = await writer.flush();
    expect(result.written).toEqual(["e"]);
    expect(result.blocked).toEqual(["c"]);
    expect(result.failed).toEqual([
      { nodeId: "a", file: "src/pkg/broken/a.py", reason: expect.stringMatching(/^cannot write src\/pkg\/broken\/a\.py: E(NOTDIR|EXIST)/) },
      {
        nodeId: "d",
        file: "src/pkg/broken/a.py",
        reason: "cannot write src/pkg/broken/a.py: " + result.failed[0]!.reason.split(": ").slice(1).join(": "),
      },
    ]);
    expect(result.files).toEqual(["src/pkg/e.py", "tests/test_e.py"]);
    // The output is as it was for every node that was not written, and holds e.
    expect(read(out, "src/pkg/broken")).toBe("a file where the folder of a's module should be\n");
    expect(read(out, "tests/test_d.py")).toBe("# the previous tests of d\n");
    expect(read(out, "src/pkg/c.py")).toBeUndefined();
    expect(read(out, "src/pkg/e.py")).toBe("def e():\n    return 1\n");
    // The work tree follows the output, so the next node does not build on code that is not there.
    expect(read(work, "src/pkg/c.py")).toBeUndefined();
    expect(read(work, "tests/test_a.py")).toBeUndefined();
    expect(read(work, "tests/test_d.py")).toBe("# the previous tests of d\n");
    expect(read(work, "src/pkg/e.py")).toBe("def e():\n    return 1\n");
  });

  it("fails a node sharing a file with one whose dependency could not be written", async () => {
    const { out, writer, pass } = await setup({ a: "broken/a", b: "shared", c: "shared" }, { b: ["a"] });
    put(out, "src/pkg/broken", "not a folder\n");
    for (const id of ["a", "b", "c"]) {
      pass(id);
      writer.stage(id);
    }
    const result = await writer.flush();
    expect(result.blocked).toEqual(["b"]);
    expect(result.failed.map((f) => [f.nodeId, f.reason])).toEqual([
      ["a", expect.stringContaining("cannot write src/pkg/broken/a.py")],
      ["c", "not written: it shares src/pkg/shared.py with b, which could not be written"],
    ]);
    expect(result.written).toEqual([]);
    expect(read(out, "src/pkg/shared.py")).toBeUndefined();
  });

  it("fails a node whose rename fails after its bytes were written, and puts back its files already renamed", async () => {
    const { work, out, writer, pass } = await setup({ a: "a", b: "b" });
    put(out, "src/pkg/a.py", "# a as it was\n");
    // The module renames first; the test file cannot, a folder stands where it should go.
    mkdirSync(join(out, "tests/test_a.py"), { recursive: true });
    pass("a");
    pass("b");
    writer.stage("a");
    writer.stage("b");
    const result = await writer.flush();
    expect(result.failed).toEqual([
      { nodeId: "a", file: "tests/test_a.py", reason: expect.stringContaining("cannot write tests/test_a.py") },
    ]);
    expect(result.written).toEqual(["b"]);
    expect(result.files).toEqual(["src/pkg/b.py", "tests/test_b.py"]);
    expect(read(out, "src/pkg/a.py")).toBe("# a as it was\n");
    expect(read(work, "src/pkg/a.py")).toBe("# a as it was\n");
    expect(readdirSync(join(out, "tests")).sort()).toEqual(["test_a.py", "test_b.py"]);
    expect(readdirSync(join(out, "src/pkg")).sort()).toEqual(["a.py", "b.py"]);
  });
});
