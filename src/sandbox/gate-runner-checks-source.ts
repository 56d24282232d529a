/**
 * What the gate's record checks before it believes a pass, as Python source for the bootstrap (gate-bootstrap.ts):
 * pytest's machinery as the collection started, the collected items and their functions. Defines runner_checks.
 */
export const RUNNER_CHECKS_SOURCE = String.raw`
def runner_checks(sys):
    """
    What the record checks before it believes a pass: that pytest's machinery (its modules, pluggy's, their classes,
    the plugin manager's hooks) is the one the session's collection started with, and that a test runs the function
    pytest collected for it. Generated code that reaches pytest's objects could otherwise register a plugin whose
    pytest_pyfunc_call runs no test, replace pytest.raises, or give the next item another function. Built before any
    code of the package runs, with the built-ins it calls bound then; held only by the record's frame.
    """
    import itertools, operator

    # Compared by identity, never by ==, which a replacement could answer; and never through id(), which raises an audit
    # event each call (every one a call of the guard).
    same, values_of, flattened = operator.is_, operator.methodcaller("values"), itertools.chain.from_iterable
    numbered = enumerate
    is_a, attribute, has, namespace, type_of, text, dict_type = isinstance, getattr, hasattr, vars, type, str, dict
    # The interpreter's own table of modules, not whatever sys.modules is rebound to later.
    modules = sys.modules
    listed, mapped, zipped, every, size = tuple, map, zip, all, len
    code_type, function_type = type_of(runner_checks.__code__), type_of(runner_checks)
    method_type = type_of(runner_checks.__get__(0))
    id_of, join = id, "".join
    # Names pytest itself rebinds while tests run: assertion rewriting's hooks, and a class's once-only warning flag.
    absent = object()
    # pytest's warnings write __warningregistry__ into the module that warns (a test that returns a value, in _pytest.python).
    rebound = {"_config", "_reprcompare", "_assertion_pass", "_pytest_diamond_inheritance_warning_shown", "__warningregistry__"}

    def is_runner(name):
        return name in ("pytest", "_pytest", "pluggy", "unittest") or name.startswith(("_pytest.", "pluggy.", "unittest."))

    def spaces_of():
        spaces = []
        for name, module in listed(modules.items()):
            if module is None or not is_runner(name):
                continue
            names = namespace(module)
            spaces.append((name, names))
            for value in listed(names.values()):
                if is_a(value, type_of) and attribute(value, "__module__", None) == name:
                    spaces.append((name + "." + value.__name__, namespace(value)))
        return spaces

    def identical(these, those):
        return size(these) == size(those) and every(mapped(same, these, those))

    def contents(space):
        # The values alone: a name rebound, added or removed shows in them; a name swapped for another with the same value
        # changes nothing pytest does.
        return listed(space.values())

    def hooks_of(config, callers):
        manager = config.pluginmanager
        state = [manager, manager.hook, config.hook, attribute(manager, "_inner_hookexec", None)]
        state.extend(listed(namespace(manager.hook).values()))
        for caller, implementations in callers:
            state.append(attribute(caller, "_hookexec", None))
            for hook in implementations(caller):
                state.extend((hook, hook.function, hook.argnames, hook.kwargnames, hook.hookwrapper, attribute(hook, "wrapper", None)))
        return state

    def state_at_start(config, cells):
        # Each hook caller's implementations listed by its class's own method as it is now, whatever is done to the class later.
        callers = [(caller, type_of(caller).get_hookimpls) for caller in listed(namespace(config.pluginmanager.hook).values())]
        spaces = spaces_of()
        # The last place is for settle's quick look.
        state = [config, callers, hooks_of(config, callers), spaces, [(listed(space), contents(space)) for _, space in spaces], None]
        return state + [cells, listed(cell.cell_contents for cell in cells)]

    def settle(start):
        """
        Once the collection is done, the items made and the flags pytest sets on their classes set: every value of the
        namespaces pytest never writes to in one tuple, to look at in one pass (C's, not Python's: a look costs a fraction
        of a millisecond where one namespace at a time cost 1.6). Only when nothing but what pytest rebinds has changed.
        """
        if start is None or changed_since(start) is not None:
            return
        spaces = start[3]
        volatile = [index for index, (_, space) in numbered(spaces) if not rebound.isdisjoint(listed(space))]
        steady = [space for index, (_, space) in numbered(spaces) if index not in volatile]
        start[5] = (steady, volatile, listed(flattened(mapped(values_of, steady))))

    def only_rebound(space, names, values):
        """Whether what changed in a namespace is only names pytest rebinds itself."""
        before = {key: value for key, value in zipped(names, values)}
        now = {}
        for key, value in listed(space.items()):
            if type_of(key) is not text:
                return False
            now[key] = value
        return every(key in rebound or same(before.get(key, absent), now.get(key, absent)) for key in listed(before) + listed(now))

    def changed_since(start, hooks_only=False):
        """What of pytest's machinery changed since the collection started, if anything did."""
        if start is None:
            return "the record of how the session started"
        config, callers, hooks, spaces, then, quick, cells, cells_then = start
        if not identical(listed(cell.cell_contents for cell in cells), cells_then):
            return "rpg-forge's own plugin"
        if not identical(hooks_of(config, callers), hooks):
            return "pytest's hooks"
        if hooks_only:
            return None
        pairs = zipped(spaces, then)
        if quick is not None:
            steady, volatile, values_then = quick
            if identical(listed(flattened(mapped(values_of, steady))), values_then):
                # Left to look at one by one: only the namespaces pytest writes to itself.
                pairs = [(spaces[index], then[index]) for index in volatile]
        for (name, space), (names, values) in pairs:
            if not identical(contents(space), values) and not only_rebound(space, names, values):
                return name
        return None

    def own_value(instance, name):
        """
        A value of an object's own __dict__, read without running code of the package: not through a property or the
        test module's __getattr__ (pytest's Function.obj looks the function up again once it is cleared, and the
        record ran the package's code that way), nor a key's __eq__ (every key a plain str first).
        """
        space = namespace(instance)
        if type_of(space) is not dict_type:
            return None
        for key in listed(space):
            if type_of(key) is not text:
                return None
        return space.get(name)

    def function_of(item, function=absent):
        """What the item's test function is made of (its code, globals, defaults and closure); None for anything else."""
        if function is absent:
            function = own_value(item, "_obj")
        if type_of(function) is method_type:
            function = function.__func__
        if type_of(function) is not function_type:
            return None
        return listed(attribute(function, name, None) for name in ("__code__", "__globals__", "__defaults__", "__kwdefaults__", "__closure__"))

    def collected(session):
        """
        The items the collection made, each with its test id (a plain string) and its function, which must be the test
        file's own under the test's name; taken when the collection finishes, before any test runs.
        """
        items = {}
        for item in listed(session.items):
            parts = function_of(item)
            code = parts[0] if parts is not None else None
            own = type_of(code) is code_type and code.co_name == item.originalname and code.co_filename == text(item.path)
            items[id_of(item)] = (item, plain(item.nodeid), parts if own else None, type_of(item))
        return items

    def test_of(items, item, function=absent):
        """The collected test id of an item that runs the function collected for it, the way pytest runs tests; else None."""
        entry = items.get(id_of(item)) if items is not None else None
        if entry is None or not same(entry[0], item) or not same(type_of(item), entry[3]) or entry[2] is None:
            return None
        parts = function_of(item, function)
        if parts is None or not identical(parts, entry[2]):
            return None
        runs_with = attribute(type_of(item).runtest, "__code__", None)
        if runs_with is None or "/_pytest/" not in runs_with.co_filename:
            return None
        # Nothing of the item's class (runtest, repr_failure, a unittest result's addFailure) stands in for its own.
        for name in listed(namespace(item)):
            if is_a(attribute(type_of(item), name, None), function_type):
                return None
        return entry[1]

    def outcome_of(report):
        """
        A report's phase and the test's outcome from it (None for a setup or teardown that passed), read once each as
        plain strings: an attribute the package rewrote to an object of its own could answer each comparison its own way.
        """
        when, outcome = report.when, report.outcome
        if type_of(when) is not text or type_of(outcome) is not text:
            return "call", "error"
        if has(report, "wasxfail") or outcome == "skipped":
            return when, "skipped"
        if outcome != "passed":
            return when, "failed" if when == "call" else "error"
        return when, "passed" if when == "call" else None

    def plain(nodeid):
        """A test id as a plain string: a subclass could hash and compare as it likes, and be encoded as another id."""
        return join((nodeid,))

    def pinned(items, item):
        """The function object test_of just vetted, read once: what the verdict plugin calls, never item.obj read later."""
        function = own_value(item, "_obj")
        # The object read once is the one vetted and the one handed back: code run in between (a finalizer the collector
        # calls) can change the item's, not this.
        return function if function is not None and test_of(items, item, function) is not None else None

    def collected_method(items, item, method):
        """Whether a bound method unittest called and saw return is of the function collected for this item."""
        if type_of(method) is not method_type:
            return False
        entry = items.get(id_of(item)) if items is not None else None
        if entry is None or not same(entry[0], item) or entry[2] is None:
            return False
        parts = function_of(item, method)
        return parts is not None and identical(parts, entry[2])

    return state_at_start, settle, changed_since, collected, test_of, outcome_of, plain, pinned, collected_method
`;
