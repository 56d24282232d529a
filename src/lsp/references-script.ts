/**
 * The parser's stand-in for the language server's references: where a module-level symbol is named, through
 * Python's scoping and the imports (relative ones, re-exports by a package, `import a.b` and aliases); a class member's
 * references are every attribute of its name in the files that can reach the class, since only types could tell more.
 */
export const REFERENCES_PY = String.raw`
def absolute_module(module, is_package, level, name):
    """The module an import names, relative imports resolved against the importing module."""
    if level == 0:
        return name or ""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(0, len(parts) - (level - 1))]
    return ".".join(p for p in (".".join(parts), name) if p)


def dotted(node):
    """'a.b.c' and the Name 'a' for an attribute chain on a name; (None, None) for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None, None
    parts.append(node.id)
    return ".".join(reversed(parts)), node


def attribute_start(src, node):
    """(line, str index) of an Attribute's attribute name: the last thing the node spells."""
    end = src.cp(node.end_lineno, node.end_col_offset)
    return node.end_lineno, end - len(node.attr)


def string_site(src, node, text):
    """(line, str index) of the characters of a one-line string literal equal to 'text', or None."""
    if not (isinstance(node, ast.Constant) and node.value == text and node.lineno == node.end_lineno):
        return None
    line = src.line(node.lineno)
    start, end = src.cp(node.lineno, node.col_offset), src.cp(node.end_lineno, node.end_col_offset)
    raw = line[start:end]
    quote = next((i for i, ch in enumerate(raw) if ch in "'\""), None)
    if quote is None or raw[quote + 1 : quote + 1 + len(text)] != text or len(raw) != quote + 2 + len(text):
        return None
    return node.lineno, start + quote + 1


def all_entries(tree):
    """The string constants of '__all__' assignments at module level."""
    out = []
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(statement, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(statement.value, (ast.List, ast.Tuple)):
            out.extend(statement.value.elts)
    return out


class Parsed:
    def __init__(self, f):
        self.path, self.module, self.package = f["path"], f["module"], f.get("package", False)
        self.src = Source(f["text"])
        self.scope, self.names, self.placed = analyze(self.src.tree)
        self.scope_of_name = {id(n): s for n, s in self.names}


def parse_all(files):
    parsed, broken = {}, []
    for f in files:
        try:
            parsed[f["path"]] = Parsed(f)
        except (SyntaxError, ValueError, RecursionError):
            broken.append(f["path"])
    return parsed, broken


def find_defs(src, qualname):
    return [(node, entry) for node, entry in symbol_nodes(src) if entry["qualname"] == qualname]


def find_references(files, target, parsed=None):
    """Where the symbol 'target' (a file and a qualified name) is named, by Python's own scoping and the imports: the
    parser's stand-in for the language server. A class member's references are every attribute of its name in the
    files that could reach it, since only types could tell more."""
    if parsed is None:
        parsed, broken = parse_all(files)
    else:
        parsed, broken = parsed
    home = parsed.get(target["path"])
    if home is None:
        return {"ok": False, "message": f"{target['path']} does not parse"}
    defs = find_defs(home.src, target["qualname"])
    if not defs:
        return {"ok": False, "message": f"no {target['qualname']} in {target['path']}"}
    sites = {}

    def site(p, lineno, cp, role):
        line = p.src.line(lineno)
        key = (p.path, lineno, u16(line[:cp]))
        if key not in sites or role == "definition":
            sites[key] = {"path": p.path, "line": lineno, "column": key[2], "role": role}

    for node, entry in defs:
        site(home, entry["line"], home.src.cp_of16(entry["line"], entry["column"]), "definition")
    parts = target["qualname"].split(".")
    if len(parts) == 1:
        module_level_references(parsed, home, parts[0], site)
        exact = True
    else:
        member = parts[-1]
        owner = parts[0]
        for p in parsed.values():
            if p is not home and not any(n.id == owner for n, _ in p.names) and not mentions_module(p, home.module):
                continue
            for node in ast.walk(p.src.tree):
                if isinstance(node, ast.Attribute) and node.attr == member:
                    site(p, *attribute_start(p.src, node), "attribute")
        exact = False
    ordered = sorted(sites.values(), key=lambda s: (s["path"], s["line"], s["column"]))
    return {"ok": True, "sites": ordered, "exact": exact, "unparsed": broken}


def find_references_many(files, targets):
    parsed = parse_all(files)
    return [find_references(files, target, parsed) for target in targets]


def mentions_module(p, module):
    for node in ast.walk(p.src.tree):
        if isinstance(node, ast.ImportFrom) and absolute_module(p.module, p.package, node.level, node.module) == module:
            return True
        if isinstance(node, ast.Import) and any(a.name == module for a in node.names):
            return True
    return False


def module_level_references(parsed, home, name, site):
    # Modules that bind the name to the target at module level: its own, and packages that re-export it unchanged.
    exporters = {home.module}
    grown = True
    while grown:
        grown = False
        for p in parsed.values():
            if p.module in exporters:
                continue
            for statement in p.src.tree.body:
                if isinstance(statement, ast.ImportFrom) and absolute_module(p.module, p.package, statement.level, statement.module) in exporters:
                    if any(a.name == name and (a.asname or a.name) == name for a in statement.names):
                        exporters.add(p.module)
                        grown = True
    for p in parsed.values():
        locals_ = [(home.scope, name)] if p is home else []
        modules = []
        for statement in ast.walk(p.src.tree):
            scope = p.placed.get(id(statement))
            if isinstance(statement, ast.ImportFrom):
                base = absolute_module(p.module, p.package, statement.level, statement.module)
                for a in statement.names:
                    if base in exporters and a.name == name:
                        site(p, a.lineno, p.src.cp(a.lineno, a.col_offset), "import")
                        locals_.append((scope, a.asname or a.name))
                    elif f"{base}.{a.name}" in exporters:
                        modules.append((scope, a.asname or a.name, {a.asname or a.name}))
            elif isinstance(statement, ast.Import):
                for a in statement.names:
                    if a.asname and a.name in exporters:
                        modules.append((scope, a.asname, {a.asname}))
                    elif not a.asname and any(e == a.name or e.startswith(a.name + ".") for e in exporters):
                        modules.append((scope, a.name.split(".")[0], exporters))
        for node, scope in p.names:
            for bound, local in locals_:
                if node.id == local and resolve(scope, local) is bound:
                    site(p, node.lineno, p.src.cp(node.lineno, node.col_offset), "reference" if local == name else "alias")
        for node in ast.walk(p.src.tree):
            if isinstance(node, ast.Attribute) and node.attr == name:
                chain, base = dotted(node.value)
                for bound, local, spellings in modules:
                    if base is not None and base.id == local and chain in spellings and resolve(p.scope_of_name[id(base)], local) is bound:
                        site(p, *attribute_start(p.src, node), "attribute")
        if any(bound is p.scope and local == name for bound, local in locals_):
            for constant in all_entries(p.src.tree):
                at = string_site(p.src, constant, name)
                if at:
                    site(p, *at, "string")
`;
