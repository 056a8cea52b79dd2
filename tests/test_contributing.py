"""CONTRIBUTING.md stays short and its layout table names every module of the package."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONTRIBUTING = REPO / "CONTRIBUTING.md"


def _layout_rows():
    """The paths of the layout table's first column, each cell's `a`, `b` joined to the first
    one's directory (`fastelm/cli.py`, `_cli.py` is fastelm/cli.py and fastelm/_cli.py)."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    paths = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        names = re.findall(r"`([^`]+)`", line.split("|")[1])
        base = names[0].rsplit("/", 1)[0] + "/" if "/" in names[0].rstrip("/") else ""
        paths.update(name if "/" in name.rstrip("/") else base + name for name in names)
    return paths


def _modules():
    """Every module and package under fastelm/, as repository paths."""
    package = REPO / "fastelm"
    found = {f"fastelm/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")
             if "__pycache__" not in p.parts}
    return found | {f"fastelm/{p.relative_to(package).as_posix()}/" for p in package.rglob("*")
                    if p.is_dir() and (p / "__init__.py").is_file()}


def test_every_module_has_a_row_in_the_layout_table():
    """A file row `fastelm/x.py` covers that file, a directory row `fastelm/x/` everything
    inside it; a module (or package) with no row fails, as does a row naming nothing."""
    rows = _layout_rows()
    covered = lambda path: any(path == row or (row.endswith("/") and path.startswith(row))
                               for row in rows)
    missing = sorted(path for path in _modules() if not covered(path))
    assert not missing, f"CONTRIBUTING.md's layout table has no row for {missing}"
    stale = sorted(row for row in rows if row.startswith("fastelm/")
                   and not (REPO / row).exists())
    assert not stale, f"CONTRIBUTING.md's layout table names what does not exist: {stale}"


def test_contributing_is_at_most_10_kb():
    """Results and long records live in docs/results/ and mutation/RESULTS.md."""
    size = CONTRIBUTING.stat().st_size
    assert size <= 10 * 1024, f"CONTRIBUTING.md is {size} bytes"
