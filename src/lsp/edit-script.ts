/**
 * The edits: a symbol's body replaced, and code put before or after a symbol. Every line outside the body (or
 * around the insertion) is kept as it is, byte for byte, and the edited file must parse, or the edit is refused.
 */
export const EDIT_PY = String.raw`
def eol_of(src, lineno):
    line = src.line(lineno)
    return "\r\n" if line.endswith("\r\n") else "\r" if line.endswith("\r") else "\n"


def string_interiors(lines):
    """Indices of the lines that start inside a multi-line string: re-indenting them would change the string."""
    inside = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if tok.start[0] < tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                inside.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return inside


def reindent(code, indent, eol):
    """'code' moved to 'indent': its common indentation removed, blank lines at either end dropped, lines ended by
    'eol', and lines inside multi-line strings left as written."""
    lines = [l.rstrip("\r\n") for l in split_lines(code.replace("\r\n", "\n").replace("\r", "\n"))]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    inside = string_interiors(lines)
    shown = [l for i, l in enumerate(lines) if i not in inside and l.strip()]
    prefixes = [l[: len(l) - len(l.lstrip(" \t"))] for l in shown]
    common = prefixes[0] if prefixes else ""
    for p in prefixes[1:]:
        while not p.startswith(common):
            common = common[:-1]
    out = []
    for i, l in enumerate(lines):
        if i in inside:
            out.append(l)
        elif not l.strip():
            out.append("")
        else:
            out.append(indent + l[len(common) :])
    return "".join(l + eol for l in out)


def body_of_code(code, node):
    """The statements of a new body: a whole definition of the symbol's name gives its body, and a string leading the
    body is dropped when the symbol has a docstring (the file's docstring stays). "" when no statement is left."""
    flat = reindent(code, "", "\n")
    try:
        tree = ast.parse(flat)
    except (SyntaxError, ValueError):
        return flat  # the parse of the edited file refuses it, with its line
    statements = tree.body
    if len(statements) == 1 and isinstance(statements[0], DEFS) and statements[0].name == node.name and isinstance(statements[0], ast.ClassDef) == isinstance(node, ast.ClassDef):
        inner = statements[0]
        return statements_from(flat, inner.body[1:] if docstring_expr(inner) else inner.body)
    if docstring_expr(node) and docstring_expr(tree):
        return statements_from(flat, statements[1:])
    return flat


def statements_from(flat, rest):
    """The text of 'rest' (statements of 'flat') to the end, on lines of their own, at no indentation."""
    if not rest:
        return ""
    lines = flat.splitlines(keepends=True)
    start = first_line(rest[0])
    head = lines[start - 1]
    before = head.encode("utf-8")[: rest[0].col_offset].decode("utf-8", "replace")
    if start == rest[0].lineno and before.strip():
        # A statement that shares its line with the header or the docstring (def f(): return 1) starts at its column.
        head = head[len(before) :]
    return reindent(head + "".join(lines[start:]), "", "\n")


def locate(src, qualname, line):
    found = [(n, e) for n, e in symbol_nodes(src) if e["qualname"] == qualname and e["kind"] != "variable"]
    if line is not None:
        found = [(n, e) for n, e in found if e["line"] == line]
    return found


def refused(code, message, line=None):
    return {"ok": False, "code": code, "message": message, "line": line}


def checked(text, lines_changed):
    try:
        ast.parse(text)
    except (SyntaxError, ValueError) as e:
        return refused("LSP_EDIT_DOES_NOT_PARSE", f"the edited file would not parse: {getattr(e, 'msg', str(e))}", getattr(e, "lineno", None))
    return {"ok": True, "text": text, "lines": lines_changed}


def replace_body(text, qualname, line, code):
    src = Source(text)
    found = locate(src, qualname, line)
    if len(found) != 1:
        return refused("LSP_SYMBOL_NOT_FOUND" if not found else "LSP_SYMBOL_AMBIGUOUS", f"{len(found)} definitions of {qualname}")
    node, entry = found[0]
    body = body_of_code(code, node)
    if body is None or not body.strip():
        return refused("LSP_EDIT_EMPTY", f"the new body of {qualname} has no statement (after its docstring)")
    eol = eol_of(src, node.lineno)
    doc = docstring_expr(node)
    rest = node.body[1:] if doc else node.body
    header_line, header_cp = src.header_end(node)
    anchor = (doc.end_lineno, src.cp(doc.end_lineno, doc.end_col_offset)) if doc else (header_line, header_cp + 1)
    lines = list(src.lines)
    own_line = lambda n: n.lineno > header_line and (not doc or n is doc or first_line(n) > anchor[0])
    if rest and own_line(rest[0]) or (not rest and doc and doc.lineno > header_line):
        indent_from = rest[0] if rest else doc
        indent = src.line(first_line(indent_from))[: src.cp(indent_from.lineno, indent_from.col_offset)] if rest else src.line(doc.lineno)[: src.cp(doc.lineno, doc.col_offset)]
        new_body = reindent(body, indent, eol)
        if rest:
            start = anchor[0] + 1
            while start < first_line(rest[0]) and not src.line(start).strip():
                start += 1
            end = rest[-1].end_lineno
            probe = end + 1
            while probe <= len(lines):
                stripped = src.line(probe).strip()
                if stripped.startswith("#") and len(src.line(probe)) - len(src.line(probe).lstrip(" \t")) > len(entry["indent"]):
                    end = probe
                elif stripped:
                    break
                probe += 1
            new_lines = lines[: start - 1] + [new_body] + lines[end:]
            return checked("".join(new_lines), [start, start + new_body.count(eol) - 1])
        at = doc.end_lineno
        if not lines[at - 1].endswith(("\n", "\r")):
            lines[at - 1] += eol
        return checked("".join(lines[:at] + [new_body] + lines[at:]), [at + 1, at + new_body.count(eol)])
    # The body shares a line with the header or the docstring (def f(): return 1): that line is kept up to the ':' or
    # the docstring, and the body gets lines of its own.
    unit = "\t" if "\t" in entry["indent"] else "    "
    new_body = reindent(body, entry["indent"] + unit, eol)
    cut_line, cut_cp = anchor
    end = max(rest[-1].end_lineno if rest else cut_line, cut_line)
    kept = src.line(cut_line)[:cut_cp].rstrip(" \t")
    tail = src.line(end)
    ending = tail[len(tail.rstrip("\r\n")) :]
    new_lines = lines[: cut_line - 1] + [kept + eol + new_body[: -len(eol)] + (ending or "")] + lines[end:]
    return checked("".join(new_lines), [cut_line + 1, cut_line + new_body.count(eol)])


def insert(text, qualname, line, code, where):
    src = Source(text)
    found = locate(src, qualname, line)
    if len(found) != 1:
        return refused("LSP_SYMBOL_NOT_FOUND" if not found else "LSP_SYMBOL_AMBIGUOUS", f"{len(found)} definitions of {qualname}")
    node, entry = found[0]
    eol = eol_of(src, node.lineno)
    block = reindent(code, entry["indent"], eol)
    if not block.strip():
        return refused("LSP_EDIT_EMPTY", "nothing to insert")
    blank = [eol] * (2 if entry["indent"] == "" else 1)
    lines = list(src.lines)
    if where == "after":
        at = node.end_lineno
        if not lines[at - 1].endswith(("\n", "\r")):
            lines[at - 1] += eol
        after = blank if at < len(lines) and lines[at].strip() else []
        new_lines = lines[:at] + blank + [block] + after + lines[at:]
        first = at + len(blank) + 1
    else:
        at = first_line(node) - 1
        # Comments right above a definition belong to it: the new code goes above them.
        while at > 0 and src.line(at).strip().startswith("#") and src.line(at)[: len(entry["indent"])] == entry["indent"] and not src.line(at)[len(entry["indent"])].isspace():
            at -= 1
        before = blank if at > 0 and lines[at - 1].strip() and not lines[at - 1].rstrip().endswith(":") else []
        new_lines = lines[:at] + before + [block] + blank + lines[at:]
        first = at + len(before) + 1
    return checked("".join(new_lines), [first, first + block.count(eol) - 1])
`;
