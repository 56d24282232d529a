import { findTestBlock } from "../assembly/test-blocks.js";
import { reviewTests, testsRequest, textVerdict, type ImplementationExtras, type ReviewRefusal } from "../review/reply-review.js";
import type { RpgNode } from "../rpg/schema.js";
import { outlinePython } from "../workspace/python-outline.js";
import { checkTests, type Verdict } from "./proposals.js";

export interface TestsReply {
  python: string;
  node: RpgNode;
  /** The node's test file (repository-relative) and what it holds now: the blocks of the nodes before it. */
  testFile: string;
  current: string;
  /** The tests the model wrote. */
  code: string;
  registrars: ImplementationExtras["registrars"];
}

/**
 * A tests reply judged before it is placed: the review (issue 12), then its shape beside the other nodes' tests in the
 * file. The text checks run here first, so a reply they refuse (a lone surrogate, a forged block marker) reaches no
 * parser; the review, the reply's outline and the test file's outline then go to the Python helpers together, in one
 * round trip (issue 16). The verdict's value is the node's test ids.
 */
export async function judgeTestsReply(reply: TestsReply): Promise<Verdict<string[]>> {
  const refusal = (review: ReviewRefusal): Verdict<string[]> => ({ ok: false, reason: `the review refused the tests: ${review.reason}` });
  const early = textVerdict(testsRequest(reply.code, reply.registrars));
  if (early) return refusal(early);
  const [reviewed, outline, others] = await Promise.all([
    reviewTests(reply.python, reply.code, reply.registrars),
    outlinePython(reply.python, reply.code),
    otherTestNames(reply.python, reply.current, reply.node.id),
  ]);
  if (!reviewed.ok) return refusal(reviewed);
  return checkTests(reply.node, reply.testFile, outline, others);
}

/** The top-level names of the test file outside the node's own block: the names its tests must not take. */
async function otherTestNames(python: string, source: string, nodeId: string): Promise<Set<string>> {
  const outline = await outlinePython(python, source);
  if (!outline.ok) return new Set();
  const own = findTestBlock(source, nodeId);
  return new Set(outline.statements.filter((s) => s.name && !(own && s.start >= own.start && s.end <= own.end)).map((s) => s.name!));
}
