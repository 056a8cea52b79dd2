"""The mutation runs' forked test runner (mutation/forked.py): its command rewriting, the
covering tests it picks for a mutant, and (slow) a server's outcomes."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("forked", ROOT / "mutation" / "forked.py")
forked = importlib.util.module_from_spec(spec)
spec.loader.exec_module(forked)


@pytest.mark.parametrize("command, expected", [
    ("python -m pytest -x -q tests/test_a.py",
     "python mutation/forked.py run S --cpu 0 -- -x -q tests/test_a.py"),
    ("env NUMBA_DISABLE_JIT=1 python -m pytest -x tests/test_a.py -k 'a or b'",
     "python mutation/forked.py run S --cpu 0 --env NUMBA_DISABLE_JIT=1 -- -x tests/test_a.py "
     "-k 'a or b'"),
    ("env A=1 bash -c \"ulimit -t 60; exec python -m pytest -q tests/t.py -k 'x and y'\"",
     "python mutation/forked.py run S --cpu 60 --env A=1 -- -q tests/t.py -k 'x and y'"),
])
def test_rewrite_keeps_the_environment_the_cpu_limit_and_the_arguments(command, expected):
    assert forked.rewrite(command, "S") == expected
    assert forked.rewrite(command, "S", "map.json").split(" -- ")[0].endswith(
        "--coverage map.json")


def test_rewrite_refuses_what_is_not_pytest():
    with pytest.raises(SystemExit, match="not a pytest command"):
        forked.rewrite("python -m unittest", "S")
    with pytest.raises(SystemExit, match="cannot rewrite"):
        forked.rewrite("bash -c 'nice python -m pytest'", "S")


def test_options_drop_paths_and_the_k_expression():
    args = ["-x", "-q", "-p", "no:cacheprovider", "tests/a.py", "tests/b.py::t", "-k", "a or b",
            "-W", "error"]
    assert forked._options(args) == ["-x", "-q", "-p", "no:cacheprovider", "-W", "error"]


SOURCE = '''import os

LIMIT = 3


def f(x,
      y=1):
    if x > LIMIT:
        return (x +
                y)
    return x
'''


def _map(tmp_path, lines, fixtures=None, tests=()):
    module = tmp_path / "m.py"
    module.write_text(SOURCE)
    record = {"lines": {"m.py": lines}, "fixtures": {"m.py": fixtures or {}},
              "tests": list(tests), "pristine": {"m.py": SOURCE}}
    (tmp_path / "map.json").write_text(json.dumps(record))
    return module


def test_covering_tests_are_those_of_the_changed_statement(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = {"1": [""], "3": [""], "6": [""], "8": ["t::a", "t::b"], "9": ["t::b"],
             "10": ["t::c"], "11": ["t::a"]}
    module = _map(tmp_path, lines)
    assert forked.covering_tests("map.json") == []  # nothing changed: the whole selection
    module.write_text(SOURCE.replace("x > LIMIT", "x >= LIMIT"))
    assert forked.covering_tests("map.json") == ["t::a", "t::b"]  # the if's header only
    module.write_text(SOURCE.replace("                y)", "                -y)"))
    assert forked.covering_tests("map.json") == ["t::b", "t::c"]  # both lines of the return
    module.write_text(SOURCE.replace("y=1", "y=2"))
    assert forked.covering_tests("map.json") == []  # a default: run at import
    module.write_text(SOURCE.replace("LIMIT = 3", "LIMIT = 4"))
    assert forked.covering_tests("map.json") == []


def test_a_statement_no_test_ran_goes_to_the_whole_selection(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = _map(tmp_path, {"8": ["t::a"]})
    module.write_text(SOURCE.replace("return x\n", "return -x\n"))
    assert forked.covering_tests("map.json") == []


def test_a_statement_a_fixture_ran_brings_every_test_of_its_file(tmp_path, monkeypatch):
    # a module-scoped fixture runs in its first test's setup; the file's later tests share it
    monkeypatch.chdir(tmp_path)
    tests = ["tests/t.py::a", "tests/t.py::b[1]", "tests/u.py::c", "tests/u.py::d"]
    module = _map(tmp_path, {"8": ["tests/t.py::a", "tests/u.py::d"]},
                  fixtures={"8": ["tests/t.py::a"]}, tests=tests)
    module.write_text(SOURCE.replace("x > LIMIT", "x >= LIMIT"))
    assert forked.covering_tests("map.json") == ["tests/t.py::a", "tests/t.py::b[1]",
                                                 "tests/u.py::d"]


@pytest.mark.parametrize("covering_only, covering_code, asked", [
    (False, 1, 1), (False, 0, 2), (True, 0, 1), (True, 1, 1), (True, 5, 2)])
def test_the_covering_tests_decide_a_failure_and_with_covering_only_a_pass(
        monkeypatch, covering_only, covering_code, asked):
    calls = []

    def ask(path, cpu, env, args):
        calls.append(args)
        return (covering_code if len(calls) == 1 else 0), ""
    monkeypatch.setattr(forked, "covering_tests", lambda path: ["t.py::a"])
    monkeypatch.setattr(forked, "_ask", ask)
    code = forked.run("S", 0, [], ["-x", "t.py"], "map.json", covering_only)
    assert len(calls) == asked and calls[0] == ["-x", "t.py::a"]
    assert code == (covering_code if asked == 1 else 0)
    assert forked.rewrite("python -m pytest t.py", "S", "m.json", True).split(" -- ")[0] \
        .endswith("--coverage m.json --covering-only")


@pytest.mark.slow
def test_server_reports_each_outcome_and_sees_the_current_source(tmp_path):
    (tmp_path / "mod.py").write_text("VALUE = 1\n")
    (tmp_path / "test_mod.py").write_text(
        "import os\nimport mod\n\n\ndef test_value():\n    assert mod.VALUE == 1\n\n\n"
        "def test_env():\n    assert os.environ.get('FORKED_CHECK') in (None, '1')\n")
    socket = str(tmp_path / "s.sock")
    server = subprocess.Popen([sys.executable, str(ROOT / "mutation" / "forked.py"), "serve",
                               socket], cwd=tmp_path)
    try:
        def run(*args, env=()):
            command = [sys.executable, str(ROOT / "mutation" / "forked.py"), "run", socket]
            command += [f"--env={item}" for item in env] + ["--", "-q", "-p",
                                                            "no:cacheprovider", *args]
            return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
        assert run("test_mod.py").returncode == 0
        (tmp_path / "mod.py").write_text("VALUE = 2\n")  # a mutant: the next child sees it
        failed = run("test_mod.py")
        assert failed.returncode == 1 and "1 failed" in failed.stdout
        assert run("test_mod.py::test_env", env=["FORKED_CHECK=2"]).returncode == 1
        assert run("test_mod.py::test_env", env=["FORKED_CHECK=1"]).returncode == 0
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert not (tmp_path / "__pycache__").exists()  # children write no bytecode
