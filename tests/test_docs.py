"""The documentation site: it builds with warnings as errors, its gallery runs, its pages render
in a headless browser, its API reference lists every public name and nothing private, and the
code blocks of its user guide run.

The build needs the ``docs`` extra (``pip install -e ".[docs]"``) and the browser check
Chromium; without them those tests skip with a message, and in CI (``FASTELM_CI=1``, which
installs both in ``.ci/run``) they fail instead.
"""
import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
GUIDE_PAGES = sorted((DOCS / "user_guide").glob("*.md")) + [DOCS / "getting_started.md"]
BLOCKS = [(page, i, block) for page in GUIDE_PAGES
          for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S))]
#: every example must stay short: the gallery runs in CI's docs build
EXAMPLE_SECONDS = 60
IN_CI = os.environ.get("FASTELM_CI") == "1"


def _require(condition, message):
    if not condition:
        if IN_CI:
            pytest.fail(f"FASTELM_CI=1: {message}; .ci/run must install it")
        pytest.skip(message)


@pytest.mark.parametrize("page, index, block", BLOCKS,
                         ids=[f"{p.stem}-{i}" for p, i, _ in BLOCKS])
def test_user_guide_block_runs(page, index, block, tmp_path, monkeypatch, capsys):
    """Each ```python block of the user guide and getting started runs as it stands."""
    if "onnxruntime" in block:
        pytest.importorskip("onnxruntime")
    if "dask" in block:
        pytest.importorskip("dask")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, f"{page.name} block {index}", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out.strip()  # each block prints its results


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built from a clean output folder, every warning an error, every example run."""
    missing = [m for m in ("sphinx", "numpydoc", "myst_parser", "sphinx_gallery",
                           "pydata_sphinx_theme", "sphinx_design")
               if importlib.util.find_spec(m) is None]
    _require(not missing, f"the docs extra is not installed (missing {', '.join(missing)}): "
                          f"pip install -e \".[docs]\"")
    out = tmp_path_factory.mktemp("docs")
    env = dict(os.environ, FASTELM_DOCS_RERUN="1", MPLBACKEND="Agg")
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=1500)
    seconds = time.perf_counter() - start
    print(f"docs build: {seconds:.0f} s")
    assert result.returncode == 0, (f"sphinx -W failed after {seconds:.0f} s:\n"
                                    f"{result.stderr[-6000:]}\n{result.stdout[-2000:]}")
    return out / "html"


def test_site_builds_and_every_example_ran(site):
    pages = sorted((site / "auto_examples").glob("plot_*.html"))
    examples = sorted((REPO / "examples").glob("plot_*.py"))
    assert len(examples) >= 8 and len(pages) == len(examples)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        match = re.search(r"Total running time of the script:</strong> \((\d+) minutes ([\d.]+) "
                          r"seconds\)", text)
        assert match, f"{page.name} has no running time: the example did not run"
        seconds = 60 * int(match.group(1)) + float(match.group(2))
        assert seconds < EXAMPLE_SECONDS, f"{page.name} ran {seconds:.0f} s"
        assert "sphx-glr-script-out" in text, f"{page.name} printed nothing"


def _api_object_ids(site):
    ids = set()
    for page in (site / "api").rglob("*.html"):
        ids |= set(re.findall(r'<dt class="sig sig-object py" id="([^"]+)"',
                              page.read_text(encoding="utf-8")))
    return ids


def test_api_reference_lists_every_public_name_and_nothing_private(site):
    import fastelm

    index = (site / "api" / "index.html").read_text(encoding="utf-8")
    ids = _api_object_ids(site)
    for name in fastelm.__all__:
        assert f"fastelm.{name}" in ids, f"fastelm.{name} has no API entry"
        assert f'href="generated/fastelm.{name}.html' in index, f"the API index lacks {name}"
    private = sorted(i for i in ids if any(part.startswith("_") for part in i.split(".")))
    assert not private, f"private names in the API reference: {private}"
    pages = [p.name for p in (site / "api").rglob("*.html")]
    assert not [p for p in pages if "._" in p or p.startswith("_")], pages
    for module in ("datasets", "fmri", "connectome", "confounds", "metrics", "stream", "onnx",
                   "dask", "model_selection", "global_sensitivity"):
        page = site / "api" / f"{module}.html"
        assert page.is_file(), f"no API page for fastelm.{module}"


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _browser(args, tmp_path, timeout=120):
    profile = tmp_path / "profile"
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
               "--window-size=1280,900", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


#: page, a text its rendered DOM must hold (the page's title)
PAGES = (("index.html", "fastelm"), ("user_guide/elm.html", "ELM and OS-ELM"),
         ("api/index.html", "API reference"), ("auto_examples/index.html", "Gallery"))


@pytest.mark.parametrize("page, title", PAGES)
def test_page_renders_in_a_headless_browser(site, page, title, tmp_path):
    _require(_chromium() is not None,
             "Chromium is not installed (apt-get install chromium) for the browser check")
    from PIL import Image

    url = (site / page).as_uri()
    dom = _browser(["--dump-dom", url], tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", dom.stdout, re.S)
    assert heading and title in html.unescape(re.sub("<[^>]+>", "", heading.group(1))), \
        f"{page} rendered without its title {title!r}"
    assert re.search(r"<title>[^<]*" + re.escape(html.escape(title, quote=False)),
                     dom.stdout), f"{page}: no <title> with {title!r}"
    images = re.findall(r'<img[^>]+src="([^"]+)"', dom.stdout)
    for src in images:
        if src.startswith(("data:", "http")):
            continue
        path = (site / page).parent / html.unescape(src).split("?")[0]
        assert path.is_file(), f"{page}: image {src} is not in the build"
        with Image.open(path) as image:
            assert min(image.size) > 1, f"{page}: image {src} is empty"
    if page.startswith("auto_examples"):
        assert len(images) >= 8, f"the gallery shows {len(images)} images"
    shot = tmp_path / "page.png"
    result = _browser([f"--screenshot={shot}", url], tmp_path)
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 20, f"{page}: the screenshot is blank"


def test_user_guide_has_a_block_per_method():
    """The tour that README.md used to hold: one runnable block per method."""
    text = "\n".join(block for _, _, block in BLOCKS)
    for name in ("ELMClassifier", "OSELMClassifier", "FOSELMRegressor", "efast", "BLSClassifier",
                 "load_roi_dataset", "DEELMSSCPlus", "TriTrainingClassifier", "OPELMRegressor",
                 "ELMClassifierCV", "prequential", "to_onnx", "ConnectomeTransformer"):
        assert name in text, name
