"""The house plan: every kernreg module sits on a floor and imports only its floor or below;
no import cycles between packages or modules; scripts use public names only; algorithm modules
are leaves (no algorithm imports another, no building block imports an algorithm) and no
estimator class grows past ~150 lines.

Floors, bottom to top (docs/architecture.md):

0. base: ``kernreg`` itself, ``errors``, ``atomic``, ``_validation``, ``switches``,
   ``progress``, ``registry`` (the registry type), ``grid`` (a config's grids), ``paper``
   (data)
1. ``datasets``    registry, files, preprocessing, cache
2. ``kernels``     kernel registry, blocked kernel evaluation;
   ``features``    feature-map registry, explicit random features (may import ``kernels``);
   ``losses``      losses, tasks and their measures
3. ``solvers``     estimators, their registry, Nyström pieces (centers, leverage, stopping);
                   inside it, ``solvers.algorithms`` (one leaf module per algorithm) over
                   ``solvers.blocks`` (building blocks), each algorithm ending in its
                   registration
   ``theory``      closed-form models of the papers' analyses (Bach's fixed design, spline RF)
4. ``config``      experiment configs
5. ``results``     the on-disk record (trial records, run store, readers), tables, figures
6. ``experiment``  trials, runner, preflight, resources, the protocol registry and its loop
7. ``protocols``   one folder per protocol beyond the hold-out core, registered on import;
   ``advise``      the regime advisor and its map
8. ``cli``         the ``kernreg`` command
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "kernreg"
FLOORS = {
    "kernreg": 0, "kernreg.errors": 0, "kernreg.atomic": 0, "kernreg._validation": 0,
    "kernreg.paper": 0, "kernreg.switches": 0, "kernreg.backend": 0, "kernreg.progress": 0,
    "kernreg.registry": 0, "kernreg.grid": 0, "kernreg.plugins": 0, "kernreg.bandwidth": 0,
    "kernreg.datasets": 1,
    "kernreg.kernels": 2, "kernreg.features": 2, "kernreg.losses": 2,
    "kernreg.solvers": 3, "kernreg.theory": 3,
    "kernreg.config": 4,
    "kernreg.results": 5,
    "kernreg.experiment": 6,
    "kernreg.protocols": 7, "kernreg.advise": 7,
    "kernreg.cli": 8, "kernreg.__main__": 8,  # `python -m kernreg` is the CLI's door
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _unit(module: str) -> str:
    """The floor unit of a module: the longest prefix listed in FLOORS."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in FLOORS:
            return ".".join(parts[:k])
    raise AssertionError(f"{module} is on no floor: add its package to FLOORS")


def _imports(path: Path, module: str) -> list[tuple[str, int]]:
    """kernreg modules imported by ``path`` (any depth, function-level imports included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((base, node.lineno))
            # `from kernreg.solvers import stopping` imports a module too
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names
                      if (PACKAGE.parent / f"{base}.{alias.name}".replace(".", "/")).is_dir()
                      or (PACKAGE.parent / (f"{base}.{alias.name}".replace(".", "/") + ".py"))
                      .is_file()]
    return [(name, line) for name, line in found
            if name == "kernreg" or name.startswith("kernreg.")]


def _graph() -> dict[str, list[tuple[str, int]]]:
    return {_module_name(p): _imports(p, _module_name(p)) for p in PACKAGE.rglob("*.py")}


def _facade_lines() -> set[int]:
    """The lines of the imports inside ``kernreg.__getattr__``: the package's public facade
    (``from kernreg import NystromKRLS``), loading the estimators on first use (PEP 562) — the
    one import allowed to go up, and only from inside that function."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    return {node.lineno for func in tree.body
            if isinstance(func, ast.FunctionDef) and func.name == "__getattr__"
            for node in ast.walk(func) if isinstance(node, ast.Import | ast.ImportFrom)}


def test_every_import_goes_down_or_stays_on_its_floor() -> None:
    upward = []
    facade = _facade_lines()
    for module, imports in _graph().items():
        own = FLOORS[_unit(module)]
        for target, line in imports:
            if module == "kernreg" and line in facade and _unit(target) == "kernreg.solvers":
                continue
            if FLOORS[_unit(target)] > own:
                upward.append(f"{module}:{line} imports {target} "
                              f"(floor {own} -> {FLOORS[_unit(target)]})")
    assert upward == [], "imports going up a floor:\n" + "\n".join(upward)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def test_no_cycles_between_packages() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for module, imports in _graph().items():
        for target, _ in imports:
            a, b = _unit(module), _unit(target)
            if a != b:
                edges[a].add(b)
    assert _cycles(edges) == []


def test_no_cycles_between_modules() -> None:
    graph = _graph()
    edges: dict[str, set[str]] = defaultdict(set)
    for module, imports in graph.items():
        for target, _ in imports:
            # an import of a package runs its __init__: count it as the package module
            while target not in graph and "." in target:
                target = target.rpartition(".")[0]
            # a package's __init__ importing its own submodules is how packages are built
            if target != module and not target.startswith(module + "."):
                edges[module].add(target)
    assert _cycles(edges) == []


@pytest.mark.parametrize("script", sorted((REPO / "reproduce").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_scripts_import_public_names_only(script: Path) -> None:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    private = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kernreg"):
            names = [*node.module.split("."), *(a.name for a in node.names)]
            private += [f"line {node.lineno}: {n}" for n in names if n.startswith("_")]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kernreg"):
                    private += [f"line {node.lineno}: {n}" for n in alias.name.split(".")
                                if n.startswith("_")]
    assert private == []


@pytest.mark.parametrize("package", ["kernreg.kernels", "kernreg.features"])
def test_kernel_and_feature_map_modules_are_leaves(package: str) -> None:
    """A kernel (a feature map) is one module plus its registration: it builds on the package's
    ``base`` and ``registry`` (and, for feature maps, on kernels) but never on another kernel's
    or map's module, so removing or changing one changes no other."""
    # kernels.compiled: the compiled layer every kernel's block evaluation may call
    shared = {f"{package}.base", f"{package}.registry", f"{package}.compiled", package}
    leaves = [m for m in _graph() if m.startswith(package + ".") and m not in shared]
    assert leaves, f"no modules found in {package}"
    found = [f"{module}:{line} imports {target}"
             for module in leaves for target, line in _graph()[module]
             if target.startswith(package + ".") and target not in shared]
    assert found == [], "leaf modules importing each other:\n" + "\n".join(found)


ALGORITHMS = "kernreg.solvers.algorithms"
BLOCKS = "kernreg.solvers.blocks"
#: Longest estimator class (lines, docstring and constructor included): the parameter docs and
#: the scikit-learn constructor of NYTRO take ~140 of them (σ, the intercept and the validation
#: split included); planning, iteration, validation and bookkeeping belong in building blocks
#: or helpers beside the class.
MAX_ESTIMATOR_LINES = 170


def _solver_modules(package: str) -> dict[str, list[tuple[str, int]]]:
    return {module: imports for module, imports in _graph().items()
            if module.startswith(package + ".")}


def test_algorithms_are_leaves() -> None:
    """An algorithm module imports building blocks, the registry and lower floors: never
    another algorithm (what two share is a block) nor ``kernreg.solvers`` itself (whose
    ``__init__`` imports every algorithm)."""
    found = []
    for module, imports in _solver_modules(ALGORITHMS).items():
        for target, line in imports:
            other_algorithm = target.startswith(ALGORITHMS) and target != module
            if other_algorithm or target == "kernreg.solvers":
                found.append(f"{module}:{line} imports {target}")
    assert found == [], "algorithm modules importing algorithms:\n" + "\n".join(found)


def test_blocks_never_import_algorithms() -> None:
    found = []
    for module, imports in {**_solver_modules(BLOCKS),
                            "kernreg.solvers.registry": _graph()["kernreg.solvers.registry"]
                            }.items():
        for target, line in imports:
            if target.startswith(ALGORITHMS) or target == "kernreg.solvers":
                found.append(f"{module}:{line} imports {target}")
    assert found == [], "building blocks importing algorithms:\n" + "\n".join(found)


@pytest.mark.parametrize("path", sorted((PACKAGE / "solvers" / "algorithms").glob("[!_]*.py")),
                         ids=lambda p: p.stem)
def test_an_algorithm_file_ends_in_its_registration(path: Path) -> None:
    last = ast.parse(path.read_text(encoding="utf-8")).body[-1]
    call = last.value if isinstance(last, ast.Expr) else None
    assert isinstance(call, ast.Call) and getattr(call.func, "id", "") == "register" \
        and isinstance(call.args[0], ast.Call) \
        and getattr(call.args[0].func, "id", "") == "AlgorithmSpec", \
        f"{path.name} must end with register(AlgorithmSpec(...))"


def test_estimator_classes_are_short() -> None:
    long = []
    for path in sorted((PACKAGE / "solvers").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_ESTIMATOR_LINES:
                    long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}: {lines}")
    assert long == [], "classes to split:\n" + "\n".join(long)
