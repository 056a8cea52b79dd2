"""The package's import graph, read from the source (every import, also those inside functions):
no circle, no arrow from a low module up to an estimator module, fastelm.dask knows no estimator.
"""
import ast
from pathlib import Path

import pytest

import fastelm

PACKAGE = Path(fastelm.__file__).resolve().parent
LOW = {"_kernels", "_ridge", "_recursive_ridge", "_hidden", "_gram", "_targets", "_rows",
       "_validation", "_threads", "datasets", "metrics", "fmri", "connectome"}


def _module_name(path):
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(current, node):
    """Package-relative names a (relative or absolute) ``from``/``import`` statement reaches."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif node.level == 0:
        names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    else:
        package = current.split(".") if current in PACKAGES else current.split(".")[:-1]
        base = package[: len(package) - (node.level - 1)]
        module = ".".join(base + ([node.module] if node.module else []))
        names = [module] + [f"{module}.{a.name}".strip(".") for a in node.names]
    out = set()
    for name in names:
        if name.startswith("fastelm."):
            name = name[len("fastelm."):]
        elif name == "fastelm":
            name = ""
        if name in MODULES:
            out.add(name)
    return out


FILES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
MODULES = set(FILES)
PACKAGES = {_module_name(p) for p in PACKAGE.rglob("__init__.py")}


def _graph():
    graph = {}
    for name, path in FILES.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= _resolve(name, node)
        edges.discard(name)
        graph[name] = {e for e in edges if not (name and e == "")}  # the package itself
    return graph


def _reach(graph, start):
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _estimator_modules(graph):
    """_base and every module importing it (directly or not)."""
    return {m for m in graph if m == "_base" or "_base" in _reach(graph, m)}


def test_graph_is_read():
    graph = _graph()
    assert {"_gram", "_ridge"} <= graph["_base"] | _reach(graph, "_base")
    assert "elm" in _estimator_modules(graph)


def test_no_import_circle():
    graph = _graph()
    circles = sorted(m for m in graph if m and m in _reach(graph, m))
    assert not circles, f"modules on an import circle: {circles}"


def test_low_modules_reach_no_estimator_module():
    graph = _graph()
    estimators = _estimator_modules(graph) - {""}
    for module in graph:
        if module.split(".")[0] in LOW:
            assert not _reach(graph, module) & estimators, module
    assert not _reach(graph, "dask") & estimators


# ------------------------------------------------------------------ bls.py (cosmic-ray survivors)
# Mutation kill-tests (marked ``mutant``): each kills a plausible one-line bug that a mutation
# run planted and the rest of the suite let through, and names it (mutation/RESULTS.md).


@pytest.mark.mutant
def test_typing_extensions_is_not_needed_at_run_time():
    """typing_extensions is not a dependency: the modules that take ``Self`` from it import it
    for the type checker only, and import in a process where it is absent (kills bls.py's 'if
    TYPE_CHECKING:' negated)."""
    import subprocess
    import sys
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "fastelm"
    modules = sorted(f"fastelm.{p.stem}" for p in package.glob("*.py")
                     if "typing_extensions" in p.read_text(encoding="utf-8"))
    assert "fastelm.bls" in modules
    script = ("import importlib, sys\nsys.modules['typing_extensions'] = None\n"
              f"for name in {modules!r}:\n    importlib.import_module(name)\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=package.parent, text=True,
                            capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr
