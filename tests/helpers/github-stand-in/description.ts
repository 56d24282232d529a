import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceFileUnsynced } from "../../../src/workspace/atomic-write.js";

/**
 * GitHub's REST description (`@octokit/openapi`), reduced to what validation needs: loading and indexing it,
 * finding the operation a request is for, and listing every way the request departs from that operation.
 */

interface SimpleSchema {
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
}

interface ParameterSpec {
  name: string;
  in: string;
  required: boolean;
  schema: SimpleSchema;
}

interface BodySpec {
  required: boolean;
  /** Undefined when the body is not JSON or its schema is a oneOf/anyOf: those are not checked. */
  fields?: { required: string[]; properties: Record<string, SimpleSchema>; additional: boolean };
}

export interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** The template's parameter names, in the order of the pattern's groups. */
  names: string[];
  /** One digit per segment (2 literal, 1 mixed like "{base}...{head}", 0 parameter): the highest is the most specific template. */
  specificity: string;
  operationId: string;
  docsUrl: string;
  parameters: ParameterSpec[];
  body?: BodySpec;
}

export interface JsonObject {
  [key: string]: unknown;
}

// The plain file parses in about a quarter of the deref variant's time (13 MB against 73 MB), and only
// parameters and request bodies need their $refs followed. The reduced index is kept; the spec is dropped.
let operations: Promise<Operation[]> | undefined;

/** In the repository's node_modules, as tests/helpers/node-program.ts keeps its builds. */
const CACHE = fileURLToPath(new URL("../../../node_modules/.cache/rpg-forge-stand-in/", import.meta.url));

/**
 * The index, reduced once for each state of the description and of this file, and kept in CACHE: every vitest worker
 * and every isolated test file reading and reducing the 13 MB description again took about 4 s of a test run's CPU
 * (issue 16). A pattern is made again from its template.
 */
export function loadOperations(): Promise<Operation[]> {
  operations ??= (async () => {
    const require = createRequire(import.meta.url);
    const file = require.resolve("@octokit/openapi/generated/api.github.com.json");
    // The description's version and size stand for its bytes (npm gives every installed file the same mtime).
    const { version } = JSON.parse(readFileSync(require.resolve("@octokit/openapi/package.json"), "utf8")) as { version: string };
    const key = createHash("sha256")
      .update(`${version}\0${statSync(file).size}\0`)
      .update(readFileSync(fileURLToPath(import.meta.url)))
      .digest("hex")
      .slice(0, 16);
    const cached = join(CACHE, `${key}.json`);
    try {
      return (JSON.parse(readFileSync(cached, "utf8")) as Omit<Operation, "pattern">[]).map((op) => ({
        ...op,
        pattern: patternOf(op.template),
      }));
    } catch {
      // Not made yet (or made by a killed run, and unreadable): made now.
    }
    const reduced = reduce(JSON.parse(await readFile(file, "utf8")) as JsonObject);
    try {
      // Written aside and renamed into place: another worker may be writing the same file, and a half-written one is never read.
      replaceFileUnsynced(cached, JSON.stringify(reduced.map(({ pattern, ...kept }) => (void pattern, kept))));
    } catch {
      // Kept for the next worker when it can be; this one has its index either way.
    }
    return reduced;
  })();
  return operations;
}

function patternOf(template: string): RegExp {
  // Names like {enterprise-team} are not valid group names, so groups are positional.
  return new RegExp(
    `^${template
      .split("/")
      .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "([^/]+)"))
      .join("/")}$`,
  );
}

function reduce(spec: JsonObject): Operation[] {
  const deref = (node: unknown): JsonObject => {
    let current = node as JsonObject;
    while (typeof current.$ref === "string") {
      current = current.$ref
        .slice(2)
        .split("/")
        .reduce<JsonObject>((at, key) => at[key.replaceAll("~1", "/").replaceAll("~0", "~")] as JsonObject, spec);
    }
    return current;
  };
  const simple = (node: unknown): SimpleSchema => {
    const schema = deref(node);
    return {
      type: typeof schema.type === "string" ? schema.type : undefined,
      enum: schema.enum as unknown[],
      nullable: schema.nullable === true,
    };
  };
  const result: Operation[] = [];
  for (const [template, item] of Object.entries(spec.paths as Record<string, JsonObject>)) {
    const segments = template.split("/");
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const pattern = patternOf(template);
    const specificity = segments.map((s) => (!s.includes("{") ? "2" : /^\{[^}]+\}$/.test(s) ? "0" : "1")).join("");
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as JsonObject;
      if (typeof op.operationId !== "string") continue;
      const parameters = ((op.parameters as unknown[] | undefined) ?? []).map((p) => {
        const parameter = deref(p);
        return {
          name: String(parameter.name),
          in: String(parameter.in),
          required: parameter.required === true,
          schema: simple(parameter.schema),
        };
      });
      let body: BodySpec | undefined;
      if (op.requestBody) {
        const requestBody = deref(op.requestBody);
        const json = (requestBody.content as Record<string, JsonObject> | undefined)?.["application/json"];
        const schema = json?.schema ? deref(json.schema) : undefined;
        const checkable = schema && schema.type === "object" && !schema.oneOf && !schema.anyOf && !schema.allOf;
        body = {
          required: requestBody.required === true,
          fields: checkable
            ? {
                required: (schema.required as string[] | undefined) ?? [],
                properties: Object.fromEntries(
                  Object.entries((schema.properties as JsonObject | undefined) ?? {}).map(([k, v]) => [k, simple(v)]),
                ),
                additional: schema.properties === undefined || Boolean(schema.additionalProperties),
              }
            : undefined,
        };
      }
      const docsUrl = String((op.externalDocs as JsonObject | undefined)?.url ?? "https://docs.github.com/rest");
      result.push({
        method: method.toUpperCase(),
        template,
        pattern,
        names,
        specificity,
        operationId: op.operationId,
        docsUrl,
        parameters,
        body,
      });
    }
  }
  return result;
}

interface Match {
  operation?: Operation;
  params: Record<string, string>;
  problems: string[];
}

/** Finds the operation a request is for and lists every way the request departs from its description. */
export function matchOperation(all: Operation[], method: string, path: string, query: Record<string, string>, body: unknown): Match {
  let best: { operation: Operation; values: string[] } | undefined;
  for (const operation of all) {
    if (operation.method !== method) continue;
    const found = operation.pattern.exec(path);
    if (found && (!best || operation.specificity > best.operation.specificity)) best = { operation, values: found.slice(1) };
  }
  if (!best) return { params: {}, problems: ["no such operation in GitHub's REST description"] };
  const { operation, values } = best;
  const id = operation.operationId;
  const params = Object.fromEntries(operation.names.map((name, i) => [name, safeDecode(values[i]!)]));
  const problems: string[] = [];
  for (const p of operation.parameters) {
    const value = p.in === "path" ? params[p.name] : p.in === "query" ? query[p.name] : undefined;
    if (value === undefined) {
      if (p.in === "query" && p.required) problems.push(`query parameter "${p.name}" is required by ${id}`);
      continue;
    }
    const problem = stringProblem(value, p.schema);
    if (problem) problems.push(`${p.in} parameter "${p.name}" ${problem} (${id})`);
  }
  for (const name of Object.keys(query)) {
    if (!operation.parameters.some((p) => p.in === "query" && p.name === name))
      problems.push(`query parameter "${name}" is not a parameter of ${id}`);
  }
  if (operation.body) {
    const { required, fields } = operation.body;
    if (body === undefined) {
      if (required) problems.push(`a JSON body is required by ${id}`);
    } else if (fields) {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        problems.push(`the body must be a JSON object for ${id}`);
      } else {
        const record = body as JsonObject;
        for (const name of fields.required) if (!(name in record)) problems.push(`body field "${name}" is required by ${id}`);
        for (const [name, value] of Object.entries(record)) {
          const schema = fields.properties[name];
          if (!schema) {
            if (!fields.additional) problems.push(`body field "${name}" is not a field of ${id}`);
            continue;
          }
          const problem = valueProblem(value, schema);
          if (problem) problems.push(`body field "${name}" ${problem} (${id})`);
        }
      }
    }
  } else if (body !== undefined) {
    problems.push(`${id} takes no request body`);
  }
  return { operation, params, problems };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a stray "%" reaches the handler as sent, like any other unknown name
  }
}

const SIMPLE_TYPES = new Set(["string", "integer", "number", "boolean"]);

function valueProblem(value: unknown, schema: SimpleSchema): string | undefined {
  if (!schema.type || !SIMPLE_TYPES.has(schema.type)) return undefined;
  if (value === null) return schema.nullable ? undefined : `is null, expected ${schema.type}`;
  const ok =
    schema.type === "integer"
      ? Number.isInteger(value)
      : schema.type === "number"
        ? typeof value === "number"
        : typeof value === schema.type;
  if (!ok) return `is ${JSON.stringify(value)}, expected ${schema.type}`;
  if (schema.enum && !schema.enum.includes(value)) return `is ${JSON.stringify(value)}, expected one of ${schema.enum.join(", ")}`;
  return undefined;
}

/** Path and query values arrive as text; checks the text spells a value of the declared type. */
function stringProblem(value: string, schema: SimpleSchema): string | undefined {
  if (schema.type === "integer" && !/^-?\d+$/.test(value)) return `is "${value}", expected an integer`;
  if (schema.type === "number" && !Number.isFinite(Number(value))) return `is "${value}", expected a number`;
  if (schema.type === "boolean" && value !== "true" && value !== "false") return `is "${value}", expected true or false`;
  if (schema.enum && !schema.enum.map(String).includes(value)) return `is "${value}", expected one of ${schema.enum.join(", ")}`;
  return undefined;
}
