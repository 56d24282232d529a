import { compareIds } from "../rpg/ids.js";
import type { Rpg, RpgNode } from "../rpg/schema.js";
import type { Bm25Document } from "./bm25.js";
import { splitWords, terms, type Term } from "./tokenize.js";

/** What the search knows of a leaf: the RPG's words for it, split for BM25 and joined for an embedding. */
export interface SearchDocument {
  id: string;
  name: string;
  subgraphId: string;
  filePath: string;
  signature: string | undefined;
  docstring: string;
  /** Every term of name, signature and docstring: what the matched words are picked from. */
  terms: Term[];
  bm25: Bm25Document;
  /** The text that is embedded: name, its words, signature and docstring. */
  embedText: string;
}

/**
 * Field weights: the name says what a node is, so a query word in it counts three times one in the
 * docstring. The signature's own copy of the name is left out, so that the weight stays three.
 */
export const FIELD_WEIGHTS = { name: 3, signature: 1, docstring: 1 } as const;

/** The RPG's leaves as search documents, in natural id order. Composites (modules, packages) hold no code to find. */
export function searchDocuments(rpg: Pick<Rpg, "nodes">): SearchDocument[] {
  return rpg.nodes
    .filter((n) => n.node_type === "leaf")
    .sort((a, b) => compareIds(a.id, b.id))
    .map(documentOf);
}

function documentOf(node: RpgNode): SearchDocument {
  const signature = node.signature?.trim() || undefined;
  const nameTerms = terms(node.name);
  const signatureTerms = signature ? terms(withoutName(signature, node.name)) : [];
  const docTerms = terms(node.docstring);
  const words = splitWords(node.name).join(" ");
  return {
    id: node.id,
    name: node.name,
    subgraphId: node.subgraph_id,
    filePath: node.file_path,
    signature,
    docstring: node.docstring,
    terms: [...nameTerms, ...signatureTerms, ...docTerms],
    bm25: {
      id: node.id,
      fields: [
        { weight: FIELD_WEIGHTS.name, terms: nameTerms.map((t) => t.stem) },
        { weight: FIELD_WEIGHTS.signature, terms: signatureTerms.map((t) => t.stem) },
        { weight: FIELD_WEIGHTS.docstring, terms: docTerms.map((t) => t.stem) },
      ],
    },
    embedText: [words === node.name ? node.name : `${node.name} (${words})`, signature, node.docstring.trim()].filter(Boolean).join("\n"),
  };
}

function withoutName(signature: string, name: string): string {
  const at = signature.indexOf(name);
  return at < 0 ? signature : `${signature.slice(0, at)} ${signature.slice(at + name.length)}`;
}
