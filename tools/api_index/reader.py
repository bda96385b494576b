"""One release's public API, read from its archive with ``ast``: nothing imported or run.

A module is public where no part of its dotted name starts with an underscore. Its
names are what it binds at top level (``def``, ``class``, assignments, imports, also
under ``if`` and ``try``); a name imported from another module of the package is
followed there, so that ``jax.numpy.sum`` has the parameters of the function it
re-exports. A class's attributes are its methods, class-level assignments, nested
classes and the ``self.<name>`` its methods assign, with those of its bases in the
package. A callable's parameters are its signature's names (a class's: its
``__init__``'s, else its annotated fields, as a dataclass or a Flax module takes them).

Two kinds of names come from calls rather than bindings: a module's
``_deprecations`` table (JAX's and Flax's way of keeping a removed name with the
message it raises), and configuration options defined by a call whose ``name`` is a
string (``jax.config``'s and ``flax.config``'s options, listed under ``<package>.config``).
"""

from __future__ import annotations

import ast
import dataclasses
import re
import tarfile
import zipfile
from typing import TYPE_CHECKING

from flax_errors_ext.model.lookup.api_index import (
    POSITIONAL,
    REQUIRED,
    VAR_KEYWORD,
    VAR_POSITIONAL,
)
from tools.api_index.uses import uses

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator
    from pathlib import Path


@dataclasses.dataclass
class Api:
    """What one release offers: names, each callable's parameters, messages."""

    names: set[str] = dataclasses.field(default_factory=set)
    params: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    messages: dict[str, str] = dataclasses.field(default_factory=dict)
    """A name's deprecation or removal message, as the release words it."""
    bases: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    """Each public class's public bases (whose members are listed under them)."""
    uses: set[str] = dataclasses.field(default_factory=set)
    """The names of other libraries its code uses (:func:`~tools.api_index.uses.uses`)."""
    modules: set[str] = dataclasses.field(default_factory=set)
    """Of ``names``, the public modules."""


def sources(archive: Path, package: str) -> Iterator[tuple[str, str, bool]]:
    """``(dotted module name, source, is a package)`` for each Python file of ``package``."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for name in wheel.namelist():
                module = _module_name(name, package)
                if module is not None:
                    source = wheel.read(name).decode("utf-8", "replace")
                    yield module, source, name.endswith("/__init__.py")
        return
    with tarfile.open(archive) as sdist:
        for member in sdist.getmembers():
            # A source archive holds everything below one folder: "jax-0.4.1/jax/...".
            inner = member.name.partition("/")[2]
            module = _module_name(inner, package)
            file = sdist.extractfile(member) if module is not None and member.isfile() else None
            if module is not None and file is not None:
                source = file.read().decode("utf-8", "replace")
                yield module, source, inner.endswith("/__init__.py")


def _module_name(path: str, package: str) -> str | None:
    if not path.startswith(package + "/") or not path.endswith(".py"):
        return None
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


@dataclasses.dataclass
class _Function:
    params: list[str]


@dataclasses.dataclass
class _Class:
    module: str
    members: set[str]
    methods: dict[str, list[str]]
    bases: list[str]
    init: list[str] | None
    fields: list[str]


@dataclasses.dataclass
class _Alias:
    target: str
    """A dotted name: a module, or a module's name."""


@dataclasses.dataclass
class _Instance:
    module: str
    cls: str
    """The name it was made by calling, as its module has it: its class, where one."""


_Binding = _Function | _Class | _Alias | _Instance | None
"""None: a value whose kind the reader does not follow."""


@dataclasses.dataclass
class _Module:
    bindings: dict[str, _Binding] = dataclasses.field(default_factory=dict)
    deprecations: dict[str, tuple[str, bool]] = dataclasses.field(default_factory=dict)
    """A name's message, and whether the name is still there (False: removed)."""
    flags: set[str] = dataclasses.field(default_factory=set)
    internal: set[str] = dataclasses.field(default_factory=set)
    """Names it imports for its own use: not its API (a package's imports are)."""


def read_release(archive: Path, package: str, libraries: Collection[str] = ()) -> Api:
    """The public API of ``package`` as the release in ``archive`` has it.

    ``libraries``: the top-level packages whose names its :attr:`Api.uses` lists.
    """
    modules: dict[str, _Module] = {}
    used: set[str] = set()
    for name, source, is_package in sources(archive, package):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        modules[name] = _read_module(tree, name, is_package=is_package)
        used |= uses(tree, libraries)
    api = _public(modules, package)
    api.uses = used
    return api


def _read_module(tree: ast.Module, name: str, *, is_package: bool) -> _Module:
    read = _Module()
    for statement in _top_level(tree.body):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            read.bindings[statement.name] = _Function(_parameters(statement.args))
        elif isinstance(statement, ast.ClassDef):
            read.bindings[statement.name] = _read_class(statement, name)
        elif isinstance(statement, ast.ImportFrom | ast.Import):
            imported = _imported(statement, name, is_package)
            read.bindings.update(imported)
            if not is_package:
                # "import x as x" is how a module says it re-exports (PEP 484).
                read.internal.update(
                    alias.asname or alias.name.split(".")[0]
                    for alias in statement.names
                    if alias.asname != alias.name
                )
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = (
                statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            )
            value = _value(statement.value, read.bindings, name)
            for target in targets:
                for bound in _bound_names(target):
                    read.bindings[bound] = value
                if isinstance(target, ast.Name) and target.id == "_deprecations":
                    read.deprecations.update(_deprecations(statement.value))
                if isinstance(target, ast.Name) and target.id == "__all__":
                    exported = _strings(statement.value)
                    read.internal -= exported
    read.flags = _flags(tree, name, name.split(".", maxsplit=1)[0])
    return read


def _strings(node: ast.expr | None) -> set[str]:
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return {
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        }
    return set()


def _value(node: ast.expr | None, bindings: dict[str, _Binding], module: str) -> _Binding:
    """What an assignment binds: another name, what a wrapper wraps, an instance."""
    dotted = _dotted(node)
    if dotted:
        return _Alias(dotted)
    if not isinstance(node, ast.Call):
        return None
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Name) and first.id in bindings:
        return bindings[first.id]  # "f = wrapper(f, ...)" keeps f's signature
    callee = _dotted(node.func)
    return _Instance(module, callee) if callee else None


def _imported(
    statement: ast.ImportFrom | ast.Import, module: str, is_package: bool
) -> dict[str, _Binding]:
    bound: dict[str, _Binding] = {}
    if isinstance(statement, ast.ImportFrom):
        base = _import_base(statement, module, is_package)
        for alias in statement.names:
            if alias.name != "*":
                bound[alias.asname or alias.name] = _Alias(f"{base}.{alias.name}")
        return bound
    for alias in statement.names:
        # "import a.b" binds "a"; "import a.b as c" binds "c" to a.b.
        top = alias.name.split(".")[0]
        bound[alias.asname or top] = _Alias(alias.name if alias.asname else top)
    return bound


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements, also those under ``if``, ``try`` and ``with``."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_level(statement.body)
            for handler in statement.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.With):
            yield from _top_level(statement.body)
        else:
            yield statement


def _import_base(statement: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not statement.level:
        return statement.module or ""
    parts = module.split(".")
    # "from . import x" in a package's __init__ is relative to the package itself.
    keep = len(parts) - statement.level + (1 if is_package else 0)
    base = ".".join(parts[: max(keep, 0)])
    return f"{base}.{statement.module}" if statement.module else base


def _bound_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _bound_names(element)


def _dotted(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _parameters(args: ast.arguments, *, method: bool = False) -> list[str]:
    """The parameters' names, then ``!name`` for each one a call must pass, then ``#N``.

    ``N``: how many arguments a call may pass by position (a method's ``self`` aside).
    """
    positional = [*args.posonlyargs, *args.args][1 if method else 0 :]
    names = [a.arg for a in (*positional, *args.kwonlyargs)]
    required = [a.arg for a in positional[: len(positional) - len(args.defaults)]]
    required += [
        a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None
    ]
    if args.vararg is not None:
        names.append(VAR_POSITIONAL + args.vararg.arg)
    if args.kwarg is not None:
        names.append(VAR_KEYWORD)
    return [*names, *(REQUIRED + name for name in required), f"{POSITIONAL}{len(positional)}"]


def _read_class(node: ast.ClassDef, module: str) -> _Class:
    members: set[str] = set()
    methods: dict[str, list[str]] = {}
    init: list[str] | None = None
    fields: list[str] = []
    for statement in _top_level(node.body):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            members.add(statement.name)
            methods[statement.name] = _parameters(statement.args, method=True)
            if statement.name == "__init__":
                init = methods[statement.name]
            for inner in ast.walk(statement):
                if (
                    isinstance(inner, ast.Attribute)
                    and isinstance(inner.ctx, ast.Store)
                    and isinstance(inner.value, ast.Name)
                    and inner.value.id == "self"
                ):
                    members.add(inner.attr)
        elif isinstance(statement, ast.ClassDef):
            members.add(statement.name)
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            members.add(statement.target.id)
            if "ClassVar" not in ast.unparse(statement.annotation):
                fields.append(statement.target.id)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                members.update(_bound_names(target))
    # Generic[T] bases read as their class.
    bare = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
    bases = [d for base in bare if (d := _dotted(base))]
    return _Class(module, members, methods, bases, init, fields)


def _deprecations(value: ast.expr | None) -> dict[str, tuple[str, bool]]:
    found: dict[str, tuple[str, bool]] = {}
    if not isinstance(value, ast.Dict):
        return found
    for key, entry in zip(value.keys, value.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        if isinstance(entry, ast.Tuple) and entry.elts:
            message = _text(entry.elts[0])
            removed = len(entry.elts) > 1 and _is_none(entry.elts[1])
            if message:
                found[key.value] = (message, not removed)
    return found


def _text(node: ast.expr) -> str:
    """A string literal's text, with an f-string's or a concatenation's parts joined."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            _text(v) if not isinstance(v, ast.FormattedValue) else "{}" for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return ""


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _flags(tree: ast.Module, module: str, package: str) -> set[str]:
    """The options a module defines.

    The string ``name`` (or first argument) of a call to a definer (``bool_state``,
    ``define_bool_state``, ``bool_flag``), with the prefix a definer of its own adds
    (Flax 0.6: ``'flax_' + name``). Outside a configuration module, only an option
    named for the package (``jax_...``): elsewhere a definer's names are a script's
    command-line flags (``absl.flags.DEFINE_string``).
    """
    configuration = "config" in module.rpartition(".")[2]
    prefixes = _definer_prefixes(tree)
    flags = set()
    for call, definer in _definer_calls(tree):
        for named in _option_names(call):
            if isinstance(named, ast.Constant) and isinstance(named.value, str):
                text = prefixes.get(definer, "") + named.value
                ours = configuration or text.startswith(f"{package}_")
                if ours and text.isidentifier() and "_" in text.strip("_"):
                    flags.add(text)
    return flags


_DEFINER = re.compile(r"(?i)define|flag|state$|option$")


def _definer_calls(tree: ast.AST) -> Iterator[tuple[ast.Call, str]]:
    """The calls in ``tree`` of a function named as a definer of options, and its name."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if _DEFINER.search(name):
            yield node, name


def _option_names(call: ast.Call) -> list[ast.expr]:
    """What names the option a definer's call defines: ``name=``, else its first argument."""
    return [k.value for k in call.keywords if k.arg == "name"] or call.args[:1]


def _definer_prefixes(tree: ast.Module) -> dict[str, str]:
    """A module's functions that define an option named ``'<prefix>' + name``."""
    prefixes = {}
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        for call, _ in _definer_calls(function):
            for joined in _option_names(call):
                if (
                    isinstance(joined, ast.BinOp)
                    and isinstance(joined.op, ast.Add)
                    and isinstance(joined.left, ast.Constant)
                    and isinstance(joined.left.value, str)
                ):
                    prefixes[function.name] = joined.left.value
    return prefixes


def _deprecated(name: str, module: _Module, api: Api, public: dict[str, _Binding]) -> None:
    """A deprecation table's messages; its names that are still there are public."""
    for bound, (message, present) in module.deprecations.items():
        api.messages[f"{name}.{bound}"] = message
        if present:
            public.setdefault(f"{name}.{bound}", None)


def _public(modules: dict[str, _Module], package: str) -> Api:
    api = Api()
    resolver = _Resolver(modules)
    public: dict[str, _Binding] = {}
    for name, module in modules.items():
        if any(part.startswith("_") for part in name.split(".")):
            continue
        api.names.add(name)
        api.modules.add(name)
        for bound, binding in module.bindings.items():
            if not bound.startswith("_") and bound not in module.internal:
                public[f"{name}.{bound}"] = resolver.resolve(binding)
        _deprecated(name, module, api, public)
    api.names.update(public)
    # A function or class is described once, under its shortest public name; its
    # other names (re-exports) are names alone.
    for full, resolved in sorted(public.items(), key=lambda item: (len(item[0]), item[0])):
        if isinstance(resolved, _Function | _Class):
            resolver.canonical.setdefault(id(resolved), full)
    for full, resolved in public.items():
        if isinstance(resolved, _Function | _Class) and resolver.canonical[id(resolved)] == full:
            resolver.describe(full, resolved, api)
        elif isinstance(resolved, _Instance):
            resolver.instance(full, resolved, api)
    for module in modules.values():
        for flag in module.flags:
            api.names.add(f"{package}.config.{flag}")
    return api


class _Resolver:
    def __init__(self, modules: dict[str, _Module]) -> None:
        self.modules = modules
        self.canonical: dict[int, str] = {}
        """Each public function's and class's name, by the identity of its record."""

    def resolve(self, binding: _Binding, depth: int = 0) -> _Binding:
        """Follow aliases to the function or class they name, within the package."""
        while isinstance(binding, _Alias) and depth < 10:
            depth += 1
            if binding.target in self.modules:
                return binding
            module, _, name = binding.target.rpartition(".")
            found = self.modules.get(module)
            if found is None or name not in found.bindings:
                return binding
            binding = found.bindings[name]
        return binding

    def describe(self, full: str, resolved: _Function | _Class, api: Api) -> None:
        if isinstance(resolved, _Function):
            api.params[full] = set(resolved.params)
            return
        members, fields, init, methods, bases = self._class(resolved, 0)
        # Its own __init__ is its signature; else a dataclass's (a Flax module's)
        # fields are; else an inherited __init__.
        own = resolved.init
        params = own if own is not None else fields or init or ()
        api.params[full] = {p for p in params if not p.lstrip(REQUIRED).startswith("_")}
        api.bases[full] = bases
        for member in members:
            if not member.startswith("_") or member == "__call__":
                api.names.add(f"{full}.{member}")
                if member in methods:
                    api.params[f"{full}.{member}"] = set(methods[member])

    def instance(self, full: str, made: _Instance, api: Api) -> None:
        """An instance's attributes: its class's (a module-level object, as jax.config)."""
        cls = self._named(made.module, made.cls)
        if cls is not None:
            members = self._class(cls, 0)[0]
            api.names.update(f"{full}.{m}" for m in members if not m.startswith("_"))

    def _base(self, cls: _Class, base: str) -> _Class | None:
        return self._named(cls.module, base)

    def _named(self, where: str, dotted: str) -> _Class | None:
        """The class ``dotted`` names in module ``where``, followed through imports."""
        module = self.modules.get(where)
        head, _, rest = dotted.partition(".")
        binding = module.bindings.get(head) if module is not None else None
        if rest:
            binding = _Alias(f"{binding.target}.{rest}") if isinstance(binding, _Alias) else None
        found = self.resolve(binding)
        return found if isinstance(found, _Class) else None

    def _class(
        self, cls: _Class, depth: int
    ) -> tuple[set[str], set[str], list[str] | None, dict[str, list[str]], set[str]]:
        """Members, fields, ``__init__`` parameters, methods and public bases.

        A public base's members are its own to list (the index keeps the bases); a
        private base's are folded in. Fields and parameters come from every base.
        """
        members, fields = set(cls.members), set(cls.fields)
        init = cls.init
        methods: dict[str, list[str]] = {}
        bases: set[str] = set()
        for base in cls.bases if depth < 6 else ():
            parent = self._base(cls, base)
            if parent is None:
                continue
            inherited, parent_fields, parent_init, parent_methods, above = self._class(
                parent, depth + 1
            )
            public = self.canonical.get(id(parent))
            if public is not None:
                bases.add(public)
            else:
                members |= inherited
                bases |= above
            fields |= parent_fields
            methods = {**parent_methods, **methods}
            init = init if init is not None else parent_init
        methods.update(cls.methods)
        return members, fields, init, methods, bases
