import { runPythonScript } from "../python-helpers/run-script.js";
import type { MutantKind } from "../record/test-strength.js";

/** A node's symbol: a top-level function, class or constant, or a method of `owner`. */
export interface MutationTarget {
  name: string;
  owner?: string;
}

/** One mechanical change to a symbol: the whole module, with only the symbol's text changed. */
export interface Mutant {
  kind: MutantKind;
  /** What changed, for people: "line 12: `<` became `>=`". */
  description: string;
  source: string;
}

/**
 * Makes the mutants in Python, from `ast` positions, and splices each change into the source text
 * at exactly the operator, body or test it replaces: formatting, comments and line endings around
 * it keep their bytes, which unparsing the symbol would not. The source comes as JSON rather than
 * as stdin text, so that its line endings reach the script unchanged.
 *
 * Candidates are taken round-robin by kind (the first comparison, the first body, the first
 * branch, then the second of each ...), so that three mutants are one of each kind where the
 * symbol has them. A candidate that does not compile, or that equals the original or an earlier
 * mutant, is passed over.
 */
const MUTANTS_SCRIPT = String.raw`
import ast, bisect, json, re, sys, warnings

FLIPPED = {ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">",
           ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is"}
WRITTEN = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
# How each operator may be written between its operands: parentheses, comments and line breaks may surround it.
PATTERN = {ast.Eq: r"==", ast.NotEq: r"!=", ast.Lt: r"<(?!=)", ast.LtE: r"<=", ast.Gt: r">(?!=)", ast.GtE: r">=",
           ast.In: r"\bin\b", ast.NotIn: r"\bnot[\s\\]+in\b", ast.Is: r"\bis\b", ast.IsNot: r"\bis[\s\\]+not\b"}
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Text:
    """The source with its line starts, to turn ast positions (1-based lines, UTF-8 byte columns) into offsets."""

    def __init__(self, src):
        self.src = src
        # ast counts \r\n, \r and \n as line ends, and nothing else.
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", src)]

    def offset(self, line, col):
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.src)
        text = self.src[start:end]
        return start + (col if text.isascii() else len(text.encode("utf-8")[:col].decode("utf-8")))

    def line_of(self, offset):
        return bisect.bisect_right(self.starts, offset)

    def start(self, node):
        return self.offset(node.lineno, node.col_offset)

    def end(self, node):
        return self.offset(node.end_lineno, node.end_col_offset)


def find_symbol(tree, name, owner):
    scope = tree.body
    if owner is not None:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner]
        if not classes:
            return None
        scope = classes[-1].body
    found = None
    # The last definition of the name, since that is the one the module's users (and its tests) get.
    for n in scope:
        if isinstance(n, DEFS + (ast.ClassDef,)) and n.name == name:
            found = n
        elif owner is None and isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
            found = n
        elif owner is None and isinstance(n, ast.AnnAssign) and n.value is not None and isinstance(n.target, ast.Name) and n.target.id == name:
            found = n
    return found


def inner_nodes(symbol):
    """The expressions and statements of the symbol's code (not its decorators or signature), in source order."""
    roots = symbol.body if isinstance(symbol, DEFS + (ast.ClassDef,)) else [symbol.value]
    out = []

    def visit(node):
        # Positions inside f-strings were not reliable before Python 3.12.
        if isinstance(node, ast.JoinedStr):
            return
        out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for root in roots:
        visit(root)
    return sorted((n for n in out if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))


def snippet(text, limit=40):
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "\u2026"


def comparison_flips(text, nodes):
    for node in nodes:
        if not isinstance(node, ast.Compare):
            continue
        op = type(node.ops[0])
        start, end = text.end(node.left), text.start(node.comparators[0])
        # Between the operands: parentheses, line breaks, comments (blanked here) and the operator.
        gap = re.sub(r"#[^\r\n]*", lambda m: " " * len(m.group()), text.src[start:end])
        found = list(re.finditer(PATTERN[op], gap))
        if len(found) != 1:
            continue
        at, until = start + found[0].start(), start + found[0].end()
        yield ("comparison-flipped", at, until, FLIPPED[op], f"line {text.line_of(at)}: \u0060{WRITTEN[op]}\u0060 became \u0060{FLIPPED[op]}\u0060")


def constant_returns(text, symbol, label):
    if isinstance(symbol, DEFS):
        functions = [(symbol, label)]
    elif isinstance(symbol, ast.ClassDef):
        functions = [(m, f"{label}.{m.name}") for m in symbol.body if isinstance(m, DEFS)]
    else:
        return  # a constant has no body to replace
    for fn, name in functions:
        body = fn.body
        if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring stays, so that the body is never empty
        if not body:
            continue
        at = text.start(body[0])
        yield ("constant-returned", at, text.end(body[-1]), "return None", f"line {text.line_of(at)}: the body of \u0060{name}\u0060 became \u0060return None\u0060")


def dropped_branches(text, nodes):
    for node in nodes:
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        if isinstance(node.test, ast.Constant) and node.test.value is False:
            continue
        at, until = text.start(node.test), text.end(node.test)
        test = snippet(text.src[at:until])
        if isinstance(node, ast.IfExp):
            said = f"\u0060\u2026 if {test} else \u2026\u0060 became \u0060\u2026 if False else \u2026\u0060"
        else:
            keyword = "elif" if text.src.startswith("elif", text.start(node)) else "if"
            said = f"\u0060{keyword} {test}\u0060 became \u0060{keyword} False\u0060"
        yield ("branch-dropped", at, until, "False", f"line {text.line_of(at)}: {said}")


def compiles(src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "is" with a literal and the like: the mutant is still a mutant
        try:
            compile(src, "<mutant>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


def mutants(src, name, owner, limit):
    if limit <= 0:
        return []
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return []
    symbol = find_symbol(tree, name, owner)
    if symbol is None:
        return []
    text = Text(src)
    nodes = inner_nodes(symbol)
    label = name if owner is None else f"{owner}.{name}"
    kinds = [list(comparison_flips(text, nodes)), list(constant_returns(text, symbol, label)), list(dropped_branches(text, nodes))]
    seen, out = {src}, []
    for i in range(max(len(k) for k in kinds)):
        for candidates in kinds:
            if i >= len(candidates) or len(out) >= limit:
                continue
            kind, at, until, replacement, description = candidates[i]
            mutant = src[:at] + replacement + src[until:]
            if mutant in seen or not compiles(mutant):
                continue
            seen.add(mutant)
            out.append({"kind": kind, "description": description, "source": mutant})
    return out


request = json.loads(sys.stdin.read())
print(json.dumps(mutants(request["source"], request["name"], request.get("owner"), request["max"])))
`;

/**
 * Up to `max` mutants of one symbol of a module (decision 0022): a comparison flipped, the body
 * replaced by `return None`, an `if` test replaced by `False`. Each is the whole module with only
 * that symbol's text changed, and compiles. The same input gives the same mutants in the same
 * order. A symbol that is not there, has nothing to mutate, or a module that does not parse gives [].
 */
export async function generateMutants(python: string, source: string, symbol: MutationTarget, max = 3): Promise<Mutant[]> {
  if (max <= 0) return [];
  const request = JSON.stringify({ source, name: symbol.name, owner: symbol.owner ?? null, max });
  return JSON.parse(await runPythonScript(python, MUTANTS_SCRIPT, request)) as Mutant[];
}
