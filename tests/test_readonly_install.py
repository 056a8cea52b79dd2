"""`import fastelm` and a fit work from a read-only install with no writable home
(a shared cluster install, a container run as another user): Numba's cache falls back to a
private folder under the temporary directory, or to no disk cache at all."""

import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path


import fastelm

SCRIPT = textwrap.dedent("""
    import os, sys, tempfile
    if sys.argv[1] == "no-temp":
        tempfile.tempdir = sys.argv[2]  # the temporary folder cannot be written either
    import numpy as np
    import fastelm
    from fastelm import _kernels
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = fastelm.ELMClassifier(n_hidden=8, random_state=0).fit(X, y)
    print(_kernels.CACHE, os.environ.get("NUMBA_CACHE_DIR", ""), model.score(X, y), sep="|")
""")


def _read_only_install(tmp_path):
    """A copy of the package that no locator of Numba can write to, even as root."""
    site = tmp_path / "site"
    shutil.copytree(Path(fastelm.__file__).parent, site / "fastelm",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for folder in [site / "fastelm", *(p for p in (site / "fastelm").rglob("*") if p.is_dir())]:
        (folder / "__pycache__").write_text("")  # a file: no cache folder can be made here
    for path in [site, *site.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    home = tmp_path / "home"
    home.write_text("")  # a file: ~/.cache/numba cannot be made
    return site, home


def _run(tmp_path, *args):
    site, home = _read_only_install(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_CACHE", "XDG_", "PYTHON"))}
    env.update(PYTHONPATH=str(site), HOME=str(home), TMPDIR=str(temp),
               PYTHONDONTWRITEBYTECODE="1")
    try:
        result = subprocess.run([sys.executable, "-c", SCRIPT, *args], env=env, cwd=home.parent,
                                capture_output=True, text=True, timeout=600)
    finally:
        for path in [site, *site.rglob("*")]:  # let pytest clean up
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert result.returncode == 0, result.stderr
    cache, folder, score = result.stdout.strip().splitlines()[-1].split("|")
    return cache, folder, float(score), temp


def test_cache_falls_back_to_the_temporary_folder(tmp_path):
    cache, folder, score, temp = _run(tmp_path, "temp")
    assert cache == "True"
    assert Path(folder) == temp / f"fastelm-numba-cache-{os.getuid()}"
    assert any(Path(folder).rglob("*.nbi"))  # the kernels were cached there
    assert score > 0.8


def test_no_writable_folder_at_all_compiles_without_a_disk_cache(tmp_path):
    unwritable = tmp_path / "not-a-folder"
    unwritable.write_text("")
    cache, folder, score, temp = _run(tmp_path, "no-temp", str(unwritable))
    assert (cache, folder) == ("False", "")
    assert score > 0.8
