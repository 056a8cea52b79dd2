"""The wheel ships the licence and the py.typed marker, and its metadata has no placeholder."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built from a copy of the source tree (no network, no build isolation)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE", "setup.cfg"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "fastelm", source / "fastelm",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-q", "-w", str(out), str(source)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    (path,) = out.glob("fastelm-*.whl")
    return zipfile.ZipFile(path)


def test_wheel_ships_license_and_py_typed(wheel):
    names = wheel.namelist()
    licenses = [n for n in names if ".dist-info/" in n and Path(n).name == "LICENSE"]
    assert licenses, names
    assert "BSD 3-Clause License" in wheel.read(licenses[0]).decode()
    assert "fastelm/py.typed" in names


def test_metadata_has_no_placeholder_url(wheel):
    (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    text = wheel.read(metadata).decode()
    assert "example.invalid" not in text and "Project-URL" not in text
    assert "BSD-3-Clause" in text


def test_repository_files():
    assert (REPO / "CHANGELOG.md").read_text().startswith("# Changelog")
    for path in ("pyproject.toml", "asv.conf.json"):
        assert "example.invalid" not in (REPO / path).read_text(), path
