/**
 * The gate's measures, as Python source for the bootstrap (gate-bootstrap.ts): coverage.py on one file (decision
 * 0023) and the import hook that serves a node's mutants (decision 0022). Defines coverage_of and serve_mutants.
 */
export const COVERAGE_SOURCE = String.raw`
def coverage_of(path):
    """Starts coverage.py on one file; returns what stops it and reads the arcs it recorded (decision 0023)."""
    import coverage

    # No data file (nothing on disk for the package to write first or replace), and none of the package's
    # configuration files (.coveragerc, setup.cfg, pyproject.toml: plugins, other files, other data files).
    measure = coverage.Coverage(data_file=None, branch=True, include=[path], config_file=False)
    measure.start()
    # Built-ins bound now: finish runs after the package's code, which can write __main__'s globals.
    problem, distinct, ordered, type_of, integer = Exception, set, sorted, type, int

    def finish():
        try:
            measure.stop()
            arcs = measure.get_data().arcs(path) or []
            return {"arcs": ordered(distinct((a, b) for a, b in arcs if type_of(a) is integer and type_of(b) is integer))}
        except problem as error:
            return {"error": "%s: %s" % (type_of(error).__name__, error)}

    return finish
`;

export const MUTANTS_SOURCE = String.raw`
def serve_mutants(path, os, sys, spawned):
    """
    An import hook that serves one source in place of the file at path, never from or to the bytecode cache. Between
    sessions it forgets the package's modules and whether the last session's tests started a process (spawned[0], which
    the guard sets: such a process imports the file from disk and never the mutant).
    """
    from importlib.machinery import PathFinder, SourceFileLoader
    from importlib.util import spec_from_file_location

    root = os.path.realpath(os.getcwd()) + "/"
    current = [None]
    # The module's last name, which every import of the file carries: the one name worth a second look on the path.
    stem = os.path.basename(os.path.dirname(path)) if os.path.basename(path) == "__init__.py" else os.path.basename(path)[:-3]
    class MutantLoader(SourceFileLoader):
        def path_stats(self, source_path):
            # No stats, no cached bytecode: neither the original's .pyc nor one written for a mutant.
            raise OSError("a mutant is compiled from its source")

        def get_data(self, data_path):
            if data_path == self.path:
                return current[0].encode("utf-8")
            return super().get_data(data_path)

    class MutantFinder:
        @staticmethod
        def find_spec(name, import_path=None, target=None):
            if name.rpartition(".")[2] != stem:
                return None
            spec = PathFinder.find_spec(name, import_path, target)
            if spec is None or spec.origin is None or os.path.realpath(spec.origin) != path:
                return None
            return spec_from_file_location(
                name, spec.origin, loader=MutantLoader(name, spec.origin), submodule_search_locations=spec.submodule_search_locations
            )

    sys.meta_path.insert(0, MutantFinder)

    def forget(module):
        where = [getattr(module, "__file__", None) or ""] + list(getattr(module, "__path__", None) or [])
        return any(isinstance(p, str) and os.path.realpath(p).startswith(root) for p in where if p)

    def serve(source):
        # The package and its tests imported afresh for each mutant: nothing of the last one's modules is left.
        for name, module in list(sys.modules.items()):
            if forget(module):
                del sys.modules[name]
        current[0] = source
        spawned[0] = False

    return serve
`;
