import { IMPORTS_PY } from "../assembly/python-imports.js";
import { JS_TEXT_PY } from "../python-helpers/js-text.js";
import { runPythonScript } from "../python-helpers/run-script.js";
import type { ReviewOutput, ReviewRequest } from "../review/reply-review.js";
import { REVIEW_PY } from "../review/review-script.js";
import { EDIT_PY } from "../workspace/python-edit.js";
import type { Outline } from "../workspace/python-outline.js";
import { OUTLINE_PY } from "../workspace/python-outline.js";
import { SUPPORT_PY } from "../workspace/support-code.js";

/**
 * A whole code application in one call to the helper worker (decision 0018): the Python of the
 * outline, the import analysis and organizer, the support code, the edits and the review, each
 * defined once in its own module, and a driver that runs them in the order the application takes.
 * The checks of what the model proposed that need only its outlines (checkCode) stay in TypeScript,
 * on the outlines the script returns; everything after them that needs a parse (the support code's
 * place, the symbol put in place, the import block, the final parse) happens here.
 */
const DRIVER = String.raw`
import json, sys, traceback


def apply_code(req):
    before, code, support, symbol, owner = req["before"], req["code"], req["support"], req["symbol"], req["owner"]
    imports = req["imports"]
    # What the application asked of the helpers at once before this script, in the same order (one that fails
    # fails the call, as it failed the application then).
    if imports and not req["filtered"]:
        imports = own({"lines": imports, "module": req["module"], "isPackage": req["isPackage"], "source": before,
                       "names": [owner or symbol]})["lines"]
    code_outline = outline(universal(code))
    extra = read_support(support, symbol) if js_trim(support) != "" else {"ok": True, "names": [], "before": [], "after": []}
    before_outline = outline(universal(before))
    used = set(names({"code": code})["names"]) if req["dependencies"] else set()
    edge = [line for name, line in req["dependencies"] if line is not None and name in used]
    reviewed = None
    if req["review"] is not None:
        parts = [[part, "\n".join(imports) if part == "imports" else source] for part, source in req["review"]["parts"]]
        reviewed = review_reply({**req["review"], "parts": parts})
    imports_outline = outline(universal("\n".join(imports)))
    out = {"imports": imports, "edgeImports": edge, "codeOutline": code_outline, "importsOutline": imports_outline,
           "review": reviewed, "supportNames": extra.get("names", [])}
    # The review and a reply that does not parse refuse before anything is put in place.
    if (reviewed is None or reviewed["total"] == 0) and code_outline["ok"] and imports_outline["ok"]:
        try:
            out["applied"] = put_in_place(req, imports + edge, code_outline, extra, before_outline)
        except Exception as e:
            # Refused in TypeScript first (checkCode), a reply never gets this far; otherwise the call fails, as it did.
            out["failed"] = traceback.format_exception_only(type(e), e)[-1].strip()
    return out


def refusal(reason):
    return {"ok": False, "reason": reason}


def put_in_place(req, wanted, code_outline, extra, before_outline):
    symbol, owner, where = req["symbol"], req["owner"], req["file"]
    if not extra["ok"]:
        return refusal("the support code was refused: " + "; ".join(extra["problems"][:3]))
    if not before_outline["ok"]:
        return refusal("%s does not parse before the edit: line %s: %s" % (where, before_outline["line"], before_outline["message"]))
    statements = before_outline["statements"]
    taken = {name for st in statements for name in (st["names"] if "names" in st else [st["name"]] if st["name"] else []) if name != symbol}
    clashes = [name for name in extra["names"] if name in taken or name == symbol]
    if clashes:
        return refusal("the support code defines %s, which %s already has; choose other names" % (", ".join(clashes), where))
    put = put_symbol(req, statements, code_outline)
    if not put["ok"]:
        return put
    swapped = outline(universal(put["source"]))
    # Support code goes around the top-level statement that holds the symbol: the class, for a method.
    holder = next((st for st in swapped["statements"] if st["name"] == (owner or symbol)), None) if swapped["ok"] else None
    replaced = place_support_code(put["source"], holder["start"], holder["end"], extra) if holder else put["source"]
    replaced_outline = swapped if replaced == put["source"] else outline(universal(replaced))
    if not replaced_outline["ok"]:
        return refusal("the edited file would not parse: line %s: %s" % (replaced_outline["line"], replaced_outline["message"]))
    # The model's imports plus those the RPG's edges imply for dependencies the code uses, in PEP 8 order; where
    # the block cannot be reordered, they are only added. organize() parses what it returns.
    organized = organize({"source": replaced, "localPackages": req["localPackages"], "extra": wanted})
    if "reason" not in organized:
        return {"ok": True, "source": organized["source"]}
    after = add_imports(replaced, replaced_outline["statements"], wanted)
    final = outline(universal(after))
    if not final["ok"]:
        return refusal("the edited file would not parse: line %s: %s" % (final["line"], final["message"]))
    return {"ok": True, "source": after}


def put_symbol(req, statements, code_outline):
    # A function, class or constant replaces its top-level statement; a method goes into its class. A class keeps
    # the methods its method nodes put into it, so that regenerating the class does not take them away.
    source, code, symbol, owner, methods = req["before"], req["code"], req["symbol"], req["owner"], req["methods"]
    if owner:
        klass = next((st for st in statements if st["kind"] == "class" and st["name"] == owner), None)
        if klass is None:
            return refusal("class %s is not in %s yet" % (owner, req["file"]))
        return {"ok": True, "source": replace_member(source, klass, symbol, code)}
    if methods:
        first = code_outline["statements"][0] if code_outline["statements"] else {}
        mine = [m["name"] for m in first.get("members") or [] if m["name"] in methods]
        if mine:
            return refusal("%s %s of its own: leave it out of the class" % (", ".join(mine), "is a node" if len(mine) == 1 else "are nodes"))
    old = next((st for st in statements if st["kind"] == "class" and st["name"] == symbol), None)
    carried = [(m, text) for m in methods for text in [member_code(source, old, m) if old else None] if text is not None]
    edited = replace_symbol(source, statements, symbol, code)
    for name, text in carried:
        now = outline(universal(edited))
        klass = next((st for st in now["statements"] if st["kind"] == "class" and st["name"] == symbol), None) if now["ok"] else None
        if klass:
            edited = replace_member(edited, klass, name, text)
    return {"ok": True, "source": edited}


print(json.dumps(apply_code(json.loads(sys.stdin.buffer.read()))))
`;

/** The script's parts, in order: each defines its own functions, and none redefines another's (a test holds them to it). */
export const APPLICATION_PARTS: Readonly<Record<string, string>> = {
  JS_TEXT_PY,
  OUTLINE_PY,
  IMPORTS_PY,
  SUPPORT_PY,
  EDIT_PY,
  REVIEW_PY,
  DRIVER,
};

const APPLICATION_SCRIPT = Object.values(APPLICATION_PARTS).join("\n");

/** One code application, as the script takes it. */
export interface ApplicationRequest {
  /** The module's path in the package, for the refusals. */
  file: string;
  /** The module before the edit. */
  before: string;
  code: string;
  /** The reply's import lines; `filtered` when the imports of the module by itself are already gone. */
  imports: string[];
  filtered: boolean;
  support: string;
  /** The node's name, and its class's for a method. */
  symbol: string;
  owner: string | null;
  module: string;
  isPackage: boolean;
  /** Each dependency's name with the import line it needs when the code uses it (null: none, e.g. a method). */
  dependencies: [string, string | null][];
  /** A class's method nodes, carried over into its new version. */
  methods: string[];
  localPackages: string[];
  /** The review of the reply, its imports part replaced by the applied imports; null: not reviewed (the stub). */
  review: ReviewRequest | null;
}

/** What the script found: the first refusals are TypeScript's to decide, from the review and the outlines. */
export interface ApplicationReply {
  /** The imports applied: the reply's, without imports of the module by itself. */
  imports: string[];
  edgeImports: string[];
  codeOutline: Outline;
  importsOutline: Outline;
  review: ReviewOutput | null;
  supportNames: string[];
  /** The edited module, or the refusal of the support code, the module or the edit; absent when the review or a parse refused first. */
  applied?: { ok: true; source: string } | { ok: false; reason: string };
  /** A helper failure while putting the code in place (e.g. nesting too deep for the parser). */
  failed?: string;
}

/** Runs one code application in the worker: one round trip. */
export async function applyInPython(python: string, request: ApplicationRequest): Promise<ApplicationReply> {
  return JSON.parse(await runPythonScript(python, APPLICATION_SCRIPT, JSON.stringify(request))) as ApplicationReply;
}
