/**
 * Whether a rename is safe: at every place it edits, the new name must not already mean something in scope
 * (a local, a module-level name, an import) nor would a builtin's use in the same scope come to mean the renamed
 * symbol; and every edited file must still parse.
 */
export const RENAME_CHECK_PY = String.raw`
def site_kinds(p):
    """(line, UTF-16 column) -> what is written there: a Name, a def's name, an imported name, an attribute, a string."""
    at = {}

    def put(lineno, cp, kind, node, scope):
        at.setdefault((lineno, u16(p.src.line(lineno)[:cp])), (kind, node, scope))

    for node, scope in p.names:
        put(node.lineno, p.src.cp(node.lineno, node.col_offset), "name", node, scope)
    for node in ast.walk(p.src.tree):
        if isinstance(node, DEFS):
            put(*p.src.name_at(node), "def", node, p.placed.get(id(node)))
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                put(a.lineno, p.src.cp(a.lineno, a.col_offset), "import", a, p.placed.get(id(node)))
        elif isinstance(node, ast.Attribute):
            put(*attribute_start(p.src, node), "attribute", node, None)
    return at


def rename_check(files, sites, new_name):
    """Whether renaming the symbol written at 'sites' to 'new_name' collides with a name already in scope at any of
    them, and whether every edited file still parses."""
    if not new_name.isidentifier() or keyword.iskeyword(new_name):
        return {"ok": False, "code": "LSP_RENAME_INVALID_NAME", "conflicts": [{"path": "", "line": 0, "message": f"{new_name!r} is not a Python identifier"}], "errors": []}
    conflicts, errors = [], []
    for f in files:
        if "new_text" in f:
            try:
                ast.parse(f["new_text"])
            except (SyntaxError, ValueError) as e:
                errors.append({"path": f["path"], "line": getattr(e, "lineno", 0) or 0, "message": getattr(e, "msg", str(e))})
    parsed, broken = parse_all(files)
    for path in broken:
        errors.append({"path": path, "line": 0, "message": "does not parse before the rename"})
    for p in parsed.values():
        kinds = site_kinds(p)
        for s in (s for s in sites if s["path"] == p.path):
            kind, node, scope = kinds.get((s["line"], s["column"]), (None, None, None))
            if kind == "name":
                holder = resolve(scope, new_name)
                if holder is not None:
                    existing = holder.bound[new_name]
                    conflicts.append(conflict(p, existing, f"{new_name} is already bound (line {line_of(existing)}) where the symbol is used on line {s['line']}"))
            elif kind == "def" or (kind == "import" and node.asname is None):
                if scope is None:
                    continue
                if new_name in scope.bound:
                    existing = scope.bound[new_name]
                    conflicts.append(conflict(p, existing, f"{new_name} is already defined in the same scope (line {line_of(existing)})"))
                    continue
                # A name that means a builtin (or nothing) today would mean the renamed symbol tomorrow.
                scope.bound[new_name] = node
                for name, where in p.names:
                    if name.id == new_name and resolve(where, new_name) is scope:
                        conflicts.append(conflict(p, name, f"{new_name} is used on line {name.lineno}, where it would come to mean the renamed symbol"))
                        break
                del scope.bound[new_name]
    seen, unique = set(), []
    for c in conflicts:
        key = (c["path"], c["line"], c["message"])
        if key not in seen:
            seen.add(key)
            unique.append(c)
    ok = not unique and not errors
    return {"ok": ok, "code": None if ok else "LSP_RENAME_COLLISION" if unique else "LSP_EDIT_DOES_NOT_PARSE", "conflicts": unique, "errors": errors}


def line_of(node):
    return getattr(node, "lineno", 0)


def conflict(p, node, message):
    return {"path": p.path, "line": line_of(node), "message": message}
`;
