"""Type hints on the public API (issue 14, item 15): every public function and method of
fastelm's public modules is annotated, and mypy finds the annotations consistent with the code
(``[tool.mypy]`` in pyproject.toml); the wheel's ``py.typed`` is checked in test_packaging."""
import importlib
import inspect
import os
import pkgutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import fastelm

REPO = Path(__file__).resolve().parents[1]
# the package's modules that are not its public API: the reproductions' command lines (their
# interface is the command line, tests/test_cli.py) and the __main__ entry point
NOT_API = ("experiments", "__main__")


def public_modules():
    """fastelm and each of its modules whose name has no leading underscore."""
    names = [m.name for m in pkgutil.iter_modules(fastelm.__path__)
             if not m.name.startswith("_") and m.name not in NOT_API]
    return [fastelm] + [importlib.import_module(f"fastelm.{name}") for name in sorted(names)]


def public_names(module):
    """``__all__``, else the public names the module itself defines (not its imports)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, obj in vars(module).items() if not name.startswith("_")
            and getattr(obj, "__module__", None) == module.__name__]


def _functions(name, obj):
    """(qualified name, function) of ``obj`` if a function; of a class, its public methods and
    properties defined in fastelm (inherited from a private base included, scikit-learn's not)
    and ``__init__``."""
    if inspect.isfunction(obj):
        yield name, obj
    if not inspect.isclass(obj):
        return
    for klass in obj.__mro__:
        if not klass.__module__.startswith("fastelm"):
            continue
        for attr, member in vars(klass).items():
            if attr.startswith("_") and attr != "__init__":
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property):
                member = member.fget
            # (a Protocol's __init__ is typing's)
            if inspect.isfunction(member) and member.__module__.startswith("fastelm"):
                yield f"{name}.{attr}", member


def unannotated(module):
    """'name(param, ..., ->)' of each public function or method of ``module`` missing an
    annotation (``self``/``cls`` need none, nor ``__init__``'s return)."""
    found = set()
    for name in public_names(module):
        for qualname, func in _functions(name, getattr(module, name)):
            signature = inspect.signature(func)
            params = list(signature.parameters.values())
            if params and params[0].name in ("self", "cls"):
                params = params[1:]
            missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
            if signature.return_annotation is inspect.Signature.empty \
                    and func.__name__ != "__init__":
                missing.append("->")
            if missing:
                found.add(f"{module.__name__}.{qualname}({', '.join(missing)})")
    return sorted(found)


def test_every_public_function_and_method_is_annotated():
    modules = public_modules()
    assert {"fastelm.elm", "fastelm.bls", "fastelm.onnx", "fastelm.stream"} <= \
        {m.__name__ for m in modules}
    missing = [entry for module in modules for entry in unannotated(module)]
    assert not missing, "public API without type hints:\n" + "\n".join(missing)


def test_estimators_public_methods_are_checked():
    """The walk reaches the methods the estimators inherit from private bases (fit, predict,
    partial_fit, ...), so a new one without hints would be caught."""
    checked = dict(_functions("OSELMClassifier", fastelm.OSELMClassifier))
    for name in ("__init__", "fit", "partial_fit", "forget", "predict", "predict_proba",
                 "decision_function", "beta_"):
        assert f"OSELMClassifier.{name}" in checked, name
    assert "OSELMClassifier.score" not in checked  # scikit-learn's, not fastelm's


def test_an_unannotated_public_function_is_reported():
    module = types.ModuleType("fastelm.fake")
    exec("def f(x, y: int) -> int:\n    return y\n"
         "def _private(x):\n    return x\n"
         "class C:\n"
         "    def __init__(self, a):\n        self.a = a\n"
         "    def method(self) -> None:\n        pass\n"
         "    def other(self, b: int):\n        pass\n"
         "    @property\n"
         "    def value(self):\n        return 1\n", module.__dict__)
    for obj in (module.f, module.C, module.C.__init__, module.C.method, module.C.other,
                module.C.value.fget):
        obj.__module__ = "fastelm.fake"
    assert unannotated(module) == ["fastelm.fake.C.__init__(a)", "fastelm.fake.C.other(->)",
                                   "fastelm.fake.C.value(->)", "fastelm.fake.f(x)"]


def test_mypy_finds_no_error(tmp_path):
    """``mypy`` (configured in pyproject.toml: the whole package, Python 3.10 rules) passes."""
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")], cwd=REPO,
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, MYPY_FORCE_COLOR="0"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
