/**
 * Reading a repository's Python: each file's definitions (defs, classes, methods, the names a module or class
 * body assigns) with their lines, signature, docstring and body, and its import statements. Columns go out in UTF-16
 * code units, as LSP counts them, where ast counts UTF-8 bytes; lines are broken where both break them.
 */
export const OUTLINE_PY = String.raw`
import ast, bisect, io, json, keyword, re, sys, tokenize

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_DEF = re.compile(r"(?:async\s+)?(?:def|class)\s+")


def split_lines(text):
    """Lines with their own ends, broken where ast and LSP break them (\r\n, \r, \n): joined, the text again."""
    return _LINE.findall(text)


def u16(s):
    return len(s.encode("utf-16-le")) // 2


class Source:
    """A file's text, its lines and its tree, with ast's UTF-8 byte columns turned into LSP's UTF-16 ones."""

    def __init__(self, text):
        self.text = text
        self.lines = split_lines(text)
        self.tree = ast.parse(text)
        self._colons = None

    def line(self, lineno):
        return self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""

    def cp(self, lineno, byte_col):
        """ast's byte column -> an index into the line's str."""
        return len(self.line(lineno).encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def col16(self, lineno, byte_col):
        return u16(self.line(lineno)[: self.cp(lineno, byte_col)])

    def cp_of16(self, lineno, col):
        """A UTF-16 column -> an index into the line's str."""
        units = 0
        for i, ch in enumerate(self.line(lineno)):
            if units >= col:
                return i
            units += 2 if ord(ch) > 0xFFFF else 1
        return len(self.line(lineno))

    def colons(self):
        """(line, str index) of every ':' outside brackets: where each def or class header ends."""
        if self._colons is None:
            self._colons, depth = [], 0
            try:
                for tok in tokenize.generate_tokens(io.StringIO(self.text, newline=None).readline):
                    if tok.type != tokenize.OP:
                        continue
                    if tok.string in "([{":
                        depth += 1
                    elif tok.string in ")]}":
                        depth -= 1
                    elif tok.string == ":" and depth == 0:
                        self._colons.append(tok.start)
            except (tokenize.TokenError, SyntaxError):
                pass
        return self._colons

    def header_end(self, node):
        """(line, str index) of the ':' that ends a def or class header."""
        colons = self.colons()
        at = bisect.bisect_right(colons, (node.lineno, self.cp(node.lineno, node.col_offset)))
        return colons[at] if at < len(colons) else (node.lineno, len(self.line(node.lineno).rstrip("\r\n")))

    def name_at(self, node):
        """(line, str index) of a def's or class's name."""
        line = self.line(node.lineno)
        start = self.cp(node.lineno, node.col_offset)
        m = _DEF.match(line, start)
        if m:
            return node.lineno, m.end()
        at = line.find(node.name, start)
        return node.lineno, max(at, start)

    def segment(self, start, end):
        """The text from (line, str index) to (line, str index), line ends kept."""
        (l1, c1), (l2, c2) = start, end
        if l1 == l2:
            return self.line(l1)[c1:c2]
        return self.line(l1)[c1:] + "".join(self.lines[l1 : l2 - 1]) + self.line(l2)[:c2]


def docstring_expr(node):
    body = getattr(node, "body", None)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        return body[0]
    return None


def first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def symbol_nodes(src):
    """Every def and class at module level or in a class (any depth of classes), and the names module or class bodies
    assign: (node, entry) pairs in source order."""
    out = []

    def visit(body, prefix, in_class):
        for node in body:
            if isinstance(node, DEFS):
                out.append((node, def_entry(src, node, prefix, in_class)))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, prefix + node.name + ".", True)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            out.append((node, var_entry(src, node, name, prefix)))
            elif isinstance(node, (ast.If, ast.Try, ast.With)) or type(node).__name__ == "TryStar":
                # Conditional definitions (if TYPE_CHECKING:, try/except ImportError) are still definitions of the module.
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(node, part, []), prefix, in_class)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, prefix, in_class)

    visit(src.tree.body, "", False)
    return out


def def_entry(src, node, prefix, in_class):
    is_class = isinstance(node, ast.ClassDef)
    kind = "class" if is_class else "method" if in_class else "function"
    name_line, name_cp = src.name_at(node)
    header = src.header_end(node)
    start_cp = src.cp(node.lineno, node.col_offset)
    doc = docstring_expr(node)
    rest = node.body[1:] if doc else node.body
    line = src.line(node.lineno)
    return {
        "name": node.name,
        "qualname": prefix + node.name,
        "kind": kind,
        "async": isinstance(node, ast.AsyncFunctionDef),
        "start": first_line(node),
        "line": node.lineno,
        "column": u16(src.line(name_line)[:name_cp]),
        "end": node.end_lineno,
        "indent": line[:start_cp],
        "header_end": [header[0], u16(src.line(header[0])[: header[1]])],
        "signature": src.segment((node.lineno, start_cp), (header[0], header[1] + 1)).replace("\r\n", "\n").replace("\r", "\n"),
        "docstring": ast.get_docstring(node),
        "doc": [doc.lineno, doc.end_lineno] if doc else None,
        "body": [first_line(rest[0]), rest[-1].end_lineno] if rest else None,
    }


def var_entry(src, node, name, prefix):
    first = src.line(node.lineno).rstrip("\r\n").strip()
    return {
        "name": name.id,
        "qualname": prefix + name.id,
        "kind": "variable",
        "async": False,
        "start": node.lineno,
        "line": name.lineno,
        "column": src.col16(name.lineno, name.col_offset),
        "end": node.end_lineno,
        "indent": src.line(node.lineno)[: src.cp(node.lineno, node.col_offset)],
        "header_end": None,
        "signature": first if len(first) <= 200 else first[:200] + "...",
        "docstring": None,
        "doc": None,
        "body": None,
    }


def import_ranges(src):
    return [[n.lineno, n.end_lineno] for n in ast.walk(src.tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def syntax_error(e):
    return {"ok": False, "line": getattr(e, "lineno", 0) or 0, "column": getattr(e, "offset", 0) or 0, "message": getattr(e, "msg", str(e))}


def outline_file(text):
    try:
        src = Source(text)
    except (SyntaxError, ValueError) as e:
        return syntax_error(e)
    return {"ok": True, "symbols": [entry for _, entry in symbol_nodes(src)], "imports": import_ranges(src)}
`;
