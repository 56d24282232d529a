/**
 * Python's scoping rules, enough to tell which binding a name means: what each module, class, function and
 * comprehension scope binds, and where every Name is written. The parser's references and the rename's collision check
 * stand on it.
 */
export const SCOPES_PY = String.raw`
class Scope:
    def __init__(self, node, kind, parent):
        self.node, self.kind, self.parent = node, kind, parent
        self.bound = {}
        self.declared_global = set()
        self.declared_nonlocal = set()


def analyze(tree):
    """The module scope (its tree of scopes hangs from the Names' and statements' scopes), every Name with the scope it
    is written in, and the scope of each def, class and import statement (by id)."""
    module = Scope(tree, "module", None)
    names = []
    placed = {}

    def bind(scope, name, node):
        (module if name in scope.declared_global else scope).bound.setdefault(name, node)

    def function(node, scope):
        args = node.args
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            visit(default, scope)
        every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
        if not isinstance(node, ast.Lambda):
            for a in every:
                if a.annotation is not None:
                    visit(a.annotation, scope)
            if node.returns is not None:
                visit(node.returns, scope)
        inner = Scope(node, "function", scope)
        for a in every:
            bind(inner, a.arg, a)
        for statement in node.body if isinstance(node.body, list) else [node.body]:
            visit(statement, inner)

    def comprehension(node, scope):
        generators = node.generators
        visit(generators[0].iter, scope)
        inner = Scope(node, "comprehension", scope)
        for i, gen in enumerate(generators):
            if i > 0:
                visit(gen.iter, inner)
            visit(gen.target, inner)
            for condition in gen.ifs:
                visit(condition, inner)
        for part in ("elt", "key", "value"):
            if getattr(node, part, None) is not None:
                visit(getattr(node, part), inner)

    def visit(node, scope):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            placed[id(node)] = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                visit(decorator, scope)
            bind(scope, node.name, node)
            if isinstance(node, ast.ClassDef):
                for base in node.bases + [k.value for k in node.keywords]:
                    visit(base, scope)
                inner = Scope(node, "class", scope)
                for statement in node.body:
                    visit(statement, inner)
            else:
                function(node, scope)
        elif isinstance(node, ast.Lambda):
            function(node, scope)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            comprehension(node, scope)
        elif isinstance(node, ast.Global):
            scope.declared_global.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.declared_nonlocal.update(node.names)
        elif isinstance(node, ast.Name):
            names.append((node, scope))
            if not isinstance(node.ctx, ast.Load):
                bind(scope, node.id, node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    local = alias.asname or (alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name)
                    bind(scope, local, node)
        else:
            if isinstance(node, ast.ExceptHandler) and node.name:
                bind(scope, node.name, node)
            elif type(node).__name__ in ("MatchAs", "MatchStar") and node.name:
                bind(scope, node.name, node)
            elif type(node).__name__ == "MatchMapping" and node.rest:
                bind(scope, node.rest, node)
            for child in ast.iter_child_nodes(node):
                visit(child, scope)

    for statement in tree.body:
        visit(statement, module)
    return module, names, placed


def resolve(scope, name):
    """The scope whose binding 'name' means when written in 'scope'; None for a builtin or an undefined name."""
    here = scope
    while here is not None:
        if name in here.declared_global:
            while here.parent is not None:
                here = here.parent
            return here if name in here.bound else None
        # A class body's names are seen from the body itself, not from the functions inside it.
        if (here is scope or here.kind != "class") and name in here.bound and name not in here.declared_nonlocal:
            return here
        here = here.parent
    return None

`;
