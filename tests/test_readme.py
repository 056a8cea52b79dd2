"""README.md's tour: every ```python block runs as it stands, in a fresh namespace and folder."""
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_a_block_per_method():
    text = "\n".join(BLOCKS)
    for name in ("ELMClassifier", "OSELMClassifier", "FOSELMRegressor", "efast", "BLSClassifier",
                 "load_roi_dataset", "DEELMSSCPlus", "TriTrainingClassifier"):
        assert name in text, name


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.strip()  # each block prints its results
