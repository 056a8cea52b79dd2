"""Write the API reference's pages (docs/api/*.rst) from the package's public names.

The top-level page lists every name of ``fastelm.__all__``; each public module's page lists
its ``__all__`` (or, for a module without one, the names in ``PUBLIC`` below). A name that an
earlier page already documents (a re-export: ``fastelm.fmri.load_roi_dataset`` is
``fastelm.datasets.load_roi_dataset``) links to that page instead of getting a second one.
Nothing private is listed: a name starting with ``_`` is an error here, not a page.
Files are rewritten only when their text changes, so an incremental build stays incremental.
"""
import importlib
import inspect
from pathlib import Path

#: the top-level names, grouped as a user looks for them; a name of ``fastelm.__all__`` in no
#: group lands in "Other", so a new public name is never left out
GROUPS = (
    ("ELM and OS-ELM", ("ELMRegressor", "ELMClassifier", "OSELMRegressor", "OSELMClassifier")),
    ("OP-ELM", ("OPELMRegressor", "OPELMClassifier")),
    ("FOS-ELM", ("FOSELMRegressor", "FOSELMClassifier")),
    ("Broad Learning System", ("BLSRegressor", "BLSClassifier")),
    ("Model selection (cross-validated estimators)",
     ("ELMRegressorCV", "ELMClassifierCV", "BLSRegressorCV", "BLSClassifierCV")),
    ("DE-ELM", ("DEELMRegressor", "DEELMClassifier", "StrategySelection", "select_strategy")),
    ("Semi-supervised: Tri-training and the DE-ELM-SSC family",
     ("TriTrainingClassifier", "DEELMSSC", "DEELMSSCPlus", "TriDEELM")),
    ("Global sensitivity (EFAST)",
     ("efast", "efast_sample", "efast_analyze", "EFASTResult", "hidden_node_sensitivity")),
)

#: the public modules, in page order, with a title; None takes the module's ``__all__``
MODULES = (
    ("fastelm.model_selection", "Model selection", None),
    ("fastelm.global_sensitivity", "Global sensitivity analysis", None),
    ("fastelm.de_elm", "DE-ELM", None),
    ("fastelm.deelm_ssc", "DE-ELM-SSC", None),
    ("fastelm.semi_supervised", "Semi-supervised learning", None),
    ("fastelm.stream", "Streams", ("prequential", "PrequentialResult", "OnlineLearner")),
    ("fastelm.datasets", "Data sets", None),
    ("fastelm.fmri", "fMRI", None),
    ("fastelm.connectome", "Connectomes", None),
    ("fastelm.confounds", "Confounds", None),
    ("fastelm.metrics", "Metrics", None),
    ("fastelm.onnx", "ONNX export", ("to_onnx", "register_skl2onnx")),
    ("fastelm.dask", "Dask", None),
    ("fastelm.experiments.fos_elm", "Experiment: FOS-ELM", ("run", "DATASETS", "CONFIG")),
    ("fastelm.experiments.bls_fmri", "Experiment: BLS for fMRI",
     ("run", "default_models", "REAL_SETTINGS", "BLS_PARAMS", "EXTRA_MODELS")),
    ("fastelm.experiments.de_elm_ssc", "Experiment: DE-ELM-SSC", ("run", "merge", "rewrite")),
    ("fastelm.experiments.deep", "Experiment: deep comparators",
     ("BrainNetCNNClassifier", "PopulationGCNClassifier", "RidgeRFE", "run_abide",
      "CONNECTOME_KINDS")),
)


def _kind(obj):
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def _key(name, obj):
    # constants (small ints, strings) are matched by name and value, objects by identity
    return (name, repr(obj)) if _kind(obj) == "data" else id(obj)


def _table(module, entries, documented, toctree):
    lines = [f".. currentmodule:: {module}", "", ".. autosummary::"]
    if toctree:
        lines += ["   :toctree: generated", "   :nosignatures:"]
    else:
        lines += ["   :nosignatures:"]
    lines += [""] + [f"   {entry}" for entry in entries] + [""]
    return lines


def _section(module_name, names, documented):
    """autosummary lines for `names` of a module: new ones get pages, re-exports link back."""
    module = importlib.import_module(module_name)
    new, again = [], []
    for name in names:
        if name.startswith("_"):
            raise ValueError(f"{module_name}.{name}: a private name in the public API list")
        obj = getattr(module, name)
        key = _key(name, obj)
        if key in documented:
            again.append(f"{documented[key]}.{name}")
        else:
            documented[key] = module_name
            new.append(name)
    lines = []
    for kind, title in (("class", "Classes"), ("function", "Functions"), ("data", "Constants")):
        chosen = [n for n in new if _kind(getattr(module, n)) == kind]
        if chosen:
            lines += [title, "-" * len(title), ""] + _table(module_name, chosen, documented, True)
    if again:
        title = "Also importable from here"
        lines += [title, "-" * len(title), "",
                  "The same objects as on the pages linked (re-exported for convenience).", ""]
        lines += _table(module_name, [f"~{e}" for e in again], documented, False)
    return lines


def _write(path, text):
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def module_slug(module_name):
    return module_name.replace("fastelm.", "").replace(".", "_")


def generate(docs):
    import fastelm

    api = Path(docs) / "api"
    api.mkdir(exist_ok=True)
    documented = {}
    grouped = [n for _, names in GROUPS for n in names]
    other = [n for n in fastelm.__all__ if n not in grouped]
    missing = [n for n in grouped if n not in fastelm.__all__]
    if missing:
        raise ValueError(f"docs/_ext/apigen.py groups names not in fastelm.__all__: {missing}")

    lines = ["API reference", "=============", "",
             "Every public name of fastelm. The estimators are importable from ``fastelm``",
             "itself; the modules below hold the rest. Names starting with an underscore are",
             "private and may change without notice.", "",
             ".. toctree::", "   :hidden:", ""]
    lines += [f"   {module_slug(m)}" for m, _, _ in MODULES] + [""]
    lines += ["Estimators and functions in ``fastelm``", "---------------------------------------", ""]
    for title, names in GROUPS + ((("Other", tuple(other)),) if other else ()):
        lines += [title, "~" * len(title), ""]
        for name in names:
            documented[_key(name, getattr(fastelm, name))] = "fastelm"
        lines += _table("fastelm", names, documented, True)
    lines += ["Modules", "-------", ""]
    for module_name, title, _ in MODULES:
        lines += [f"* :doc:`{module_slug(module_name)}`: ``{module_name}``"]
    _write(api / "index.rst", "\n".join(lines) + "\n")

    for module_name, title, names in MODULES:
        module = importlib.import_module(module_name)
        names = names if names is not None else tuple(module.__all__)
        heading = f"``{module_name}``: {title}"
        lines = [heading, "=" * len(heading), "", f".. automodule:: {module_name}",
                 "   :no-members:", ""]
        lines += _section(module_name, names, documented)
        _write(api / f"{module_slug(module_name)}.rst", "\n".join(lines) + "\n")
