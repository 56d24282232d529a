import { NODE_ID_PROPERTY } from "./timeout-plugin.js";

/** One test as pytest's JUnit report describes it. */
export interface TestCaseResult {
  /** pytest node id, e.g. `tests/test_stats.py::test_mean_basic`. */
  id: string;
  /** The test's name within its module or class, parameters included (`test_mean[empty]`). */
  name: string;
  status: "passed" | "failed" | "error" | "skipped";
  /** The one-line reason pytest gives (`AssertionError: assert 1 == 2`, the skip reason). */
  message?: string;
  /** The traceback or longer text pytest wrote inside the element. */
  details?: string;
  durationMs: number;
}

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

// Checked in this order: a test that fails and then errors in teardown counts as failed.
const OUTCOMES = [
  ["failure", "failed"],
  ["error", "error"],
  ["skipped", "skipped"],
] as const;

/**
 * The test cases of a pytest JUnit XML report (xunit2), in document order. Tolerant on
 * purpose: the file is written by a process running untrusted code that may be killed
 * mid-write, so a truncated or odd document yields what could be read instead of an
 * error. We parse it ourselves because only <testcase> and three child elements matter,
 * which does not justify a dependency.
 */
export function parseJUnitXml(xml: string): TestCaseResult[] {
  const cases: TestCaseResult[] = [];
  const visit = (element: XmlElement): void => {
    if (element.name === "testcase") cases.push(toTestCase(element));
    else element.children.forEach(visit);
  };
  parseXml(xml).forEach(visit);
  return cases;
}

function toTestCase(element: XmlElement): TestCaseResult {
  const name = element.attrs.name ?? "";
  const classname = element.attrs.classname ?? "";
  const seconds = Number.parseFloat(element.attrs.time ?? "");
  const result: TestCaseResult = {
    id: nodeIdProperty(element) ?? guessNodeId(classname, name),
    name,
    status: "passed",
    durationMs: Number.isFinite(seconds) ? Math.round(seconds * 1000) : 0,
  };
  const outcomes = OUTCOMES.flatMap(([tag, status]) => element.children.filter((c) => c.name === tag).map((c) => ({ c, status })));
  const first = outcomes[0];
  if (!first) return result;
  result.status = first.status;
  const message = first.c.attrs.message;
  if (message) result.message = message;
  // A failure plus a teardown error: keep both tracebacks, the second may be the real cause.
  const details = outcomes
    .map(({ c }) => c.text.trim())
    .filter((text) => text !== "")
    .join("\n\n");
  if (details) result.details = details;
  return result;
}

function nodeIdProperty(testcase: XmlElement): string | undefined {
  for (const properties of testcase.children.filter((c) => c.name === "properties")) {
    const property = properties.children.find((p) => p.name === "property" && p.attrs.name === NODE_ID_PROPERTY);
    if (property?.attrs.value) return property.attrs.value;
  }
  return undefined;
}

/**
 * Without our property (a collection error has no item to carry it) the id is rebuilt
 * from classname: `tests.test_stats` + `test_mean` -> `tests/test_stats.py::test_mean`.
 * A collection error has an empty classname and the module as its name.
 */
function guessNodeId(classname: string, name: string): string {
  if (classname === "") return name.includes("/") || name.endsWith(".py") ? name : `${name.replaceAll(".", "/")}.py`;
  return `${classname.replaceAll(".", "/")}.py::${name}`;
}

const ATTRIBUTE = /\s*([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;

/** A minimal XML reader: elements, attributes and text; skips declarations and comments; never throws. */
function parseXml(xml: string): XmlElement[] {
  const roots: XmlElement[] = [];
  const open: XmlElement[] = [];
  const addText = (text: string): void => {
    const current = open.at(-1);
    if (current) current.text += text;
  };
  let pos = 0;
  while (pos < xml.length) {
    const lt = xml.indexOf("<", pos);
    if (lt < 0) {
      addText(decodeEntities(xml.slice(pos)));
      break;
    }
    addText(decodeEntities(xml.slice(pos, lt)));
    if (xml.startsWith("<!--", lt)) pos = skipPast(xml, "-->", lt);
    else if (xml.startsWith("<![CDATA[", lt)) {
      const end = xml.indexOf("]]>", lt);
      addText(xml.slice(lt + 9, end < 0 ? xml.length : end));
      pos = end < 0 ? xml.length : end + 3;
    } else if (xml.startsWith("<?", lt)) pos = skipPast(xml, "?>", lt);
    else if (xml.startsWith("<!", lt)) pos = skipPast(xml, ">", lt);
    else if (xml.startsWith("</", lt)) {
      const gt = xml.indexOf(">", lt);
      const name = xml.slice(lt + 2, gt < 0 ? xml.length : gt).trim();
      // Close up to the matching element; a stray end tag closes nothing.
      const index = open.map((e) => e.name).lastIndexOf(name);
      if (index >= 0) open.length = index;
      pos = gt < 0 ? xml.length : gt + 1;
    } else pos = readStartTag(xml, lt, open, roots);
  }
  return roots;
}

function readStartTag(xml: string, lt: number, open: XmlElement[], roots: XmlElement[]): number {
  const name = /^[^\s/>]+/.exec(xml.slice(lt + 1, lt + 200))?.[0];
  if (!name) return lt + 1; // a lone "<" in text
  const element: XmlElement = { name, attrs: {}, children: [], text: "" };
  let pos = lt + 1 + name.length;
  ATTRIBUTE.lastIndex = pos;
  for (let match = ATTRIBUTE.exec(xml); match; match = ATTRIBUTE.exec(xml)) {
    element.attrs[match[1]!] = decodeEntities(match[2] ?? match[3] ?? "");
    pos = ATTRIBUTE.lastIndex;
  }
  const gt = xml.indexOf(">", pos);
  const parent = open.at(-1);
  if (parent) parent.children.push(element);
  else roots.push(element);
  if (gt < 0) return xml.length; // cut off inside the tag: keep what we have
  if (xml[gt - 1] !== "/") open.push(element);
  return gt + 1;
}

function skipPast(xml: string, terminator: string, from: number): number {
  const end = xml.indexOf(terminator, from);
  return end < 0 ? xml.length : end + terminator.length;
}

const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (entity, body: string) => {
    if (!body.startsWith("#")) return NAMED_ENTITIES[body] ?? entity;
    const code = body[1] === "x" ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}
