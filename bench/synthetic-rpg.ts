import type { EdgeType, Rpg, RpgEdge, RpgNode, RpgSubgraph } from "../src/rpg/schema.js";

export interface SyntheticOptions {
  /** Leaf nodes to generate. */
  nodes: number;
  /** Subgraphs (feature areas) the nodes are spread across, in layers: a subgraph only needs earlier ones. */
  subgraphs: number;
  seed?: number;
  /** Close exactly one 3-node loop among early, widely depended-on nodes, so thousands sit downstream of it. */
  withCycle?: boolean;
}

export interface SyntheticRpg {
  rpg: Rpg;
  /** The three nodes of the loop, in generation order, when `withCycle` was set. */
  cycle: string[];
}

/**
 * A seeded, deterministic RPG shaped like a planner's output: leaves grouped into
 * modules (src/pkg/<subgraph>/mod_<k>.py, about ten symbols each), each depending on
 * 0-4 earlier nodes, mostly nearby in its own subgraph, sometimes in an earlier
 * subgraph. A dependency is written as a `dependencies` entry, an edge, or both, and
 * every edge type occurs. Dependencies only point at earlier nodes, so the graph is
 * acyclic (and the subgraph graph too) unless `withCycle` closes one loop on purpose.
 */
export function syntheticRpg(options: SyntheticOptions): SyntheticRpg {
  const random = mulberry32(options.seed ?? 20_240_611);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const subgraphs = subgraphList(options.subgraphs);
  const perSubgraph = spread(options.nodes, subgraphs.length);

  const nodes: RpgNode[] = [];
  const edges: RpgEdge[] = [];
  /** Node indices per subgraph, in generation order: where dependencies are drawn from. */
  const members: number[][] = [];
  let edgeTypesSeen = 0;

  subgraphs.forEach((subgraph, s) => {
    const own: number[] = [];
    members.push(own);
    const namesInFile = new Set<string>();
    for (let k = 0; k < perSubgraph[s]!; k++) {
      const module = Math.floor(k / 10);
      if (k % 10 === 0) namesInFile.clear();
      const isClass = random() < 0.2;
      const name = uniqueName(isClass ? className(pick) : functionName(pick), namesInFile);
      const params = pick(PARAMS);
      const returns = pick(RETURNS);
      const index = nodes.length;
      const node: RpgNode = {
        id: `${subgraph.id}.mod_${module}.${name}`,
        name,
        type: isClass ? "class" : "function",
        node_type: "leaf",
        file_path: `src/pkg/${subgraph.id}/mod_${module}.py`,
        signature: isClass ? `class ${name}` : `def ${name}(${params}) -> ${returns}`,
        docstring: docstring(name, isClass ? undefined : { params, returns }, pick, random),
        dependencies: [],
        subgraph_id: subgraph.id,
      };
      if (random() < 0.3) node.examples = [`>>> ${name}(${isClass ? "" : "sample"})`];
      for (const dep of chooseDependencies(own, members.slice(0, s), random)) {
        const target = nodes[dep]!;
        const style = random();
        if (style < 0.55) node.dependencies.push(target.id);
        else if (style < 0.7) {
          node.dependencies.push(target.id);
          edges.push({ source: node.id, target: target.id, type: "function_call" });
        } else {
          // The first edges take each type in turn, so even a 50-node graph has all five.
          let type = edgeTypesSeen < EDGE_TYPES.length ? EDGE_TYPES[edgeTypesSeen++]! : weightedEdgeType(random());
          // Only a class inherits, and only from a class (RPG_INHERITS_NOT_CLASS).
          if (type === "inherits" && (node.type !== "class" || target.type !== "class")) type = "uses";
          // data_flow points from producer to consumer, the other types from dependent to dependency.
          edges.push(type === "data_flow" ? { source: target.id, target: node.id, type } : { source: node.id, target: target.id, type });
        }
      }
      nodes.push(node);
      own.push(index);
    }
  });

  const cycle = options.withCycle ? closeLoop(nodes, edges, members) : [];
  return {
    rpg: {
      nodes: shuffle(nodes, random),
      edges,
      subgraphs,
      metadata: { name: "synthetic", description: `Synthetic RPG of ${options.nodes} leaves for benchmarks.`, version: "0.1.0" },
    },
    cycle,
  };
}

/**
 * Makes b depend on a, c on b and a on c, for three consecutive nodes of the first
 * subgraph, and drops any direct c-on-a dependency (which would make a shorter loop).
 * Every other dependency points at an earlier node, so a path from c back to a can
 * only pass through b: the loop's strongly connected component is exactly these
 * three, while most of the graph depends on them.
 */
function closeLoop(nodes: RpgNode[], edges: RpgEdge[], members: number[][]): string[] {
  const first = members[0] ?? [];
  const at = Math.min(5, first.length - 3);
  if (at < 0) throw new Error("a cycle needs a first subgraph of at least 3 nodes");
  const [a, b, c] = [nodes[first[at]!]!, nodes[first[at + 1]!]!, nodes[first[at + 2]!]!];
  c.dependencies = c.dependencies.filter((id) => id !== a.id);
  const cOnA = (e: RpgEdge): boolean =>
    e.type === "data_flow" ? e.source === a.id && e.target === c.id : e.source === c.id && e.target === a.id;
  for (let i = edges.length - 1; i >= 0; i--) if (cOnA(edges[i]!)) edges.splice(i, 1);
  const need = (from: RpgNode, to: RpgNode): void => {
    if (!from.dependencies.includes(to.id)) from.dependencies.push(to.id);
  };
  need(b, a);
  need(c, b);
  need(a, c);
  return [a.id, b.id, c.id];
}

/** 0-4 earlier nodes: 85% from the node's own subgraph (mostly the last few dozen), the rest from earlier subgraphs. */
function chooseDependencies(own: readonly number[], earlier: readonly number[][], random: () => number): number[] {
  const r = random();
  const count = r < 0.15 ? 0 : r < 0.45 ? 1 : r < 0.75 ? 2 : r < 0.9 ? 3 : 4;
  const chosen = new Set<number>();
  for (let tries = 0; chosen.size < count && tries < count * 4; tries++) {
    const foreign = earlier.filter((m) => m.length > 0);
    if ((random() < 0.85 || foreign.length === 0) && own.length > 0) {
      const window = random() < 0.7 ? Math.min(own.length, 40) : own.length;
      chosen.add(own[own.length - 1 - Math.floor(random() * window)]!);
    } else if (foreign.length > 0) {
      const from = foreign[Math.floor(random() * foreign.length)]!;
      chosen.add(from[Math.floor(random() * from.length)]!);
    }
  }
  return [...chosen];
}

const EDGE_TYPES: readonly EdgeType[] = ["function_call", "import", "inherits", "uses", "data_flow"];

function weightedEdgeType(r: number): EdgeType {
  return r < 0.4 ? "function_call" : r < 0.6 ? "import" : r < 0.75 ? "uses" : r < 0.85 ? "inherits" : "data_flow";
}

const AREAS =
  "core config ingest parsing validation storage cache query index transform stats report export auth network scheduler plugins cli logging metrics".split(
    " ",
  );

function subgraphList(count: number): RpgSubgraph[] {
  return Array.from({ length: count }, (_, i) => {
    const base = AREAS[i % AREAS.length]!;
    const id = i < AREAS.length ? base : `${base}${Math.floor(i / AREAS.length) + 1}`;
    return {
      id,
      name: `${id[0]!.toUpperCase()}${id.slice(1)}`,
      description: `The ${id} feature area: its data types, helpers and public entry points.`,
    };
  });
}

/** `total` split as evenly as possible into `parts`. */
function spread(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

const VERBS =
  "parse load save build compute validate normalize merge split render format resolve collect filter group sort encode decode fetch apply convert estimate summarize register lookup".split(
    " ",
  );
const NOUNS =
  "record header config entry schema batch token window index report row column table metric event request payload path range checksum snapshot query weights histogram timestamp".split(
    " ",
  );
const QUALIFIERS = ["", "", "", "all_", "raw_", "safe_", "default_", "nested_", "partial_"];
const PARAMS = [
  "values: list[float]",
  'text: str, sep: str = ","',
  "path: str",
  "record: dict[str, object]",
  "rows: list[dict[str, str]], strict: bool = False",
  "items: Iterable[str]",
  "config: Mapping[str, object], key: str",
];
const RETURNS = ["float", "str", "list[float]", "dict[str, object]", "bool", "int", "list[str]", "None"];

function functionName(pick: <T>(items: readonly T[]) => T): string {
  return `${pick(VERBS)}_${pick(QUALIFIERS)}${pick(NOUNS)}`;
}

function className(pick: <T>(items: readonly T[]) => T): string {
  const noun = pick(NOUNS)
    .split("_")
    .map((w) => `${w[0]!.toUpperCase()}${w.slice(1)}`)
    .join("");
  return `${noun}${pick(["Parser", "Store", "Builder", "Index", "Cache", "Reader", "Writer", "Policy", "Registry"])}`;
}

/** A name is unique within its file (RPG_DUPLICATE_SYMBOL otherwise); a collision gets a numeric suffix. */
function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** Google-style docstrings of 200-500 characters, like those of examples/statkit; a function's Args follow its signature. */
function docstring(
  name: string,
  fn: { params: string; returns: string } | undefined,
  pick: <T>(items: readonly T[]) => T,
  random: () => number,
): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .toLowerCase();
  const summary = fn ? `${words[0]!.toUpperCase()}${words.slice(1)} for one input.` : `A ${words} that keeps its state between calls.`;
  const detail = pick([
    "Leading and trailing whitespace is ignored, and empty items are skipped rather than reported.",
    "The input is not modified; a new value is returned so callers can keep the original for error messages.",
    "Values are processed in order, and the first problem stops processing with an error that names its 1-based position.",
    "Results are cached per key, so repeated calls with the same arguments are cheap; the cache is bounded and evicts oldest entries first.",
  ]);
  const extra = random() < 0.5 ? "\n\nThis is the function the public API calls; keep its behaviour stable across versions." : "";
  if (!fn) {
    return `${summary}\n\n${detail}${extra}\n\nAttributes:\n    size: Number of entries held.\n    strict: Whether unknown keys raise instead of being ignored.`;
  }
  const args = fn.params
    .split(/, (?=\w+:)/)
    .map((param) => `    ${param.split(":")[0]}: The ${param.split(":")[0]} to process.`)
    .join("\n");
  const returns = fn.returns === "None" ? "" : `\nReturns:\n    ${fn.returns}: The result, of the same kind as the input.`;
  return `${summary}\n\n${detail}${extra}\n\nArgs:\n${args}${returns}\nRaises:\n    ValueError: If the input is empty or malformed.`;
}

/** Fisher-Yates with the seeded generator: planners list nodes in no particular order. */
function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A small, fast, seedable PRNG; Math.random cannot be seeded and would make runs incomparable. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
