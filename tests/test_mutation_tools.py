"""The mutation runs' forked test runner (mutation/forked.py): its command rewriting, the
covering tests it picks for a mutant, and (slow) a server's outcomes; a session's record
(mutation/session_record.py): export, import into a new session, determinism."""

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


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "mutation" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def test_covering_tests_run_file_by_file_the_fastest_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tests = ["tests/u.py::c", "tests/t.py::a", "tests/t.py::b[1 2]", "tests/u.py::d"]
    module = _map(tmp_path, {"8": tests}, tests=tests)
    record = json.loads((tmp_path / "map.json").read_text())
    record["durations"] = forked._durations(
        "== slowest durations ==\n2.50s call     tests/t.py::a\n0.30s setup    tests/t.py::a\n"
        "0.70s call     tests/t.py::b[1 2]\n0.01s teardown tests/u.py::d\n"
        "1.00s call     tests/u.py::c\n2 passed in 4.5s\n")
    assert record["durations"] == {"tests/t.py::a": 2.8, "tests/t.py::b[1 2]": 0.7,
                                   "tests/u.py::c": 1.0, "tests/u.py::d": 0.01}
    (tmp_path / "map.json").write_text(json.dumps(record))
    module.write_text(SOURCE.replace("x > LIMIT", "x >= LIMIT"))
    assert forked.covering_tests("map.json") == ["tests/t.py::b[1 2]", "tests/t.py::a",
                                                 "tests/u.py::d", "tests/u.py::c"]


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


# -- session_record.py --------------------------------------------------------------------------

A_SOURCE = '''from __future__ import annotations


def f(x: int | None, y=2):
    if x > 1:
        return x + y * 3
    return x - 1
'''
B_SOURCE = "def g(a):\n    return a * 2 < 5\n"
OPERATORS = {}  # cosmic-ray's operators with no arguments, as a configuration without any


def _session(tmp_path, name):
    """A session as run_cosmic_ray.sh makes one: cosmic-ray init of both modules (in the
    working directory), the annotation filter."""
    pytest.importorskip("cosmic_ray")
    from cosmic_ray.commands.init import init
    from cosmic_ray.work_db import use_db
    session = str(tmp_path / name)
    with use_db(session) as db:
        init([Path("pkg/a.py"), Path("pkg/b.py")], db, OPERATORS)
    _load("annotation_filter").main([session])
    return session


def _outcomes(session):
    """{mutant key: result} of the completed mutants, and the set of pending mutants' keys."""
    from cosmic_ray.work_db import WorkDB, use_db
    with use_db(session, WorkDB.Mode.open) as db:
        key = session_record._mutation_key
        done = {key(item.mutations[0]): result for item, result in db.completed_work_items}
        pending = {key(item.mutations[0]) for item in db.pending_work_items}
    return done, pending


session_record = _load("session_record")


@pytest.fixture
def run(tmp_path, monkeypatch):
    """A session half run: results written through the WorkDB API (killed with long outputs,
    survivors, an incompetent), pinned, exported to record.jsonl."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(A_SOURCE)
    (tmp_path / "pkg" / "b.py").write_text(B_SOURCE)
    session = _session(tmp_path, "old.sqlite")
    session_record.pin(session)
    with use_db(session, WorkDB.Mode.open) as db:
        pending = sorted(db.pending_work_items, key=lambda i: session_record._mutation_key(
            i.mutations[0]))
        for n, item in enumerate(pending[::2]):
            outcome = [TestOutcome.KILLED, TestOutcome.SURVIVED, TestOutcome.INCOMPETENT][n % 3]
            db.set_result(item.job_id, WorkResult(
                worker_outcome=WorkerOutcome.NORMAL if n % 3 < 2 else WorkerOutcome.EXCEPTION,
                test_outcome=outcome, diff=f"--- mutation diff ---\n-{n}\n+ü{n}\n",
                output="".join(f"line {n} {i} é\n" for i in range(60 * n))))
    session_record.export(session, "record.jsonl")
    return session


def test_a_record_carries_the_results_into_a_new_session(run, tmp_path, capsys):
    assert len(list(open("record.jsonl"))) > 10
    new = _session(tmp_path, "new.sqlite")
    counts = session_record.import_("record.jsonl", new)
    done, pending = _outcomes(run)
    new_done, new_pending = _outcomes(new)
    assert counts["imported"] == len(list(open("record.jsonl"))) and counts["dropped"] == 0
    assert new_pending == pending and counts["pending"] == len(pending) > 10
    assert new_done.keys() == done.keys()
    for key, result in done.items():
        killed = result.test_outcome == session_record.TestOutcome.KILLED
        limit = session_record.KILLED_TAIL if killed else session_record.OUTPUT_TAIL
        assert new_done[key] == result.__class__(
            worker_outcome=result.worker_outcome, test_outcome=result.test_outcome,
            diff=result.diff, output=session_record.tail(result.output, limit))
        if result.output and len(result.output) > limit:  # the last lines, whole
            assert new_done[key].output.startswith("[...]\nline ")
            assert result.output.endswith(new_done[key].output[6:])
    assert f"{counts['imported']} imported, 0 dropped" in capsys.readouterr().out


def test_the_records_of_a_changed_module_are_dropped(run, tmp_path, capsys):
    (tmp_path / "pkg" / "b.py").write_text(B_SOURCE.replace("5", "6"))
    new = _session(tmp_path, "new.sqlite")
    counts = session_record.import_("record.jsonl", new)
    records = [json.loads(line) for line in open("record.jsonl")]
    of_b = sum(r["module"] == "pkg/b.py" for r in records)
    assert of_b and counts["dropped"] == of_b and counts["imported"] == len(records) - of_b
    new_done, new_pending = _outcomes(new)
    assert not any(key[0] == "pkg/b.py" for key in new_done)  # all of b's mutants run again
    assert f"{of_b} records of pkg/b.py dropped: the module changed" in capsys.readouterr().out


def test_the_record_is_deterministic_and_survives_a_round_trip(run, tmp_path):
    first = Path("record.jsonl").read_bytes()
    session_record.export(run, "again.jsonl")
    assert Path("again.jsonl").read_bytes() == first
    new = _session(tmp_path, "new.sqlite")  # new job ids, another order in the database
    session_record.import_("record.jsonl", new)
    session_record.pin(new)
    session_record.export(new, "round.jsonl")
    assert Path("round.jsonl").read_bytes() == first
    lines = first.decode().splitlines()
    assert lines == sorted(lines, key=lambda line: session_record._record_key(json.loads(line)))
    assert all(json.loads(line)["worker"] != "skipped" for line in lines)


def test_the_hash_is_the_pinned_one_not_a_mutant_in_the_copy(run, tmp_path):
    # while a run goes on, the copy's module may hold a mutant: the pin (or --root) decides
    (tmp_path / "pkg" / "a.py").write_text(A_SOURCE.replace("x + y", "x - y"))
    session_record.export(run, "during.jsonl")
    assert Path("during.jsonl").read_bytes() == Path("record.jsonl").read_bytes()
    session_record.sidecar(run).unlink()
    with pytest.raises(SystemExit, match="give --root"):
        session_record.export(run, "nopin.jsonl")
    repository = tmp_path / "repository" / "pkg"
    repository.mkdir(parents=True)
    for name, source in (("a.py", A_SOURCE), ("b.py", B_SOURCE)):
        (repository / name).write_text(source)
    session_record.export(run, "root.jsonl", root=tmp_path / "repository")
    assert Path("root.jsonl").read_bytes() == Path("record.jsonl").read_bytes()


def test_an_output_tail_is_its_own_tail():
    text = "".join(f"{i}\n" for i in range(1000))
    cut = session_record.tail(text, 100)
    assert len(cut) <= 100 and cut.startswith("[...]\n") and text.endswith(cut[6:])
    assert session_record.tail(cut, 100) == cut and session_record.tail("short", 100) == "short"
    assert session_record.blob_hash(b"x\n") == "587be6b4c3f93f93c489c0111bba5596147a26cb"


def test_verify_names_the_modules_changed_since_the_pin(run, tmp_path):
    assert session_record.verify(run, tmp_path) == []
    (tmp_path / "pkg" / "b.py").write_text(B_SOURCE + "# changed\n")
    assert session_record.verify(run, tmp_path) == ["pkg/b.py"]


@pytest.mark.slow
def test_exec_runs_only_the_mutants_the_record_leaves_pending(tmp_path):
    # cosmic-ray's own commands: a run, half its record imported into a new session, whose
    # exec runs the other half; the new session's record is the first one
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "b.py").write_text(B_SOURCE)
    check = "import runpy; g = runpy.run_path('pkg/b.py')['g']; assert g(2) and not g(3)"
    (tmp_path / "c.toml").write_text(
        '[cosmic-ray]\nmodule-path = ["pkg/b.py"]\ntimeout = 60.0\nexcluded-modules = []\n'
        f'test-command = {json.dumps(sys.executable + " -c " + json.dumps(check))}\n'
        '[cosmic-ray.distributor]\nname = "local"\n')

    def cr(*args):
        subprocess.run(["cosmic-ray", *args], cwd=tmp_path, check=True, capture_output=True)
    cr("init", "c.toml", "old.sqlite")
    session_record.pin(tmp_path / "old.sqlite", tmp_path)
    cr("exec", "c.toml", "old.sqlite")
    session_record.export(tmp_path / "old.sqlite", tmp_path / "full.jsonl")
    full = (tmp_path / "full.jsonl").read_text().splitlines(keepends=True)
    assert len(full) > 4 and {json.loads(line)["test"] for line in full} >= {"killed"}
    marked = [json.dumps({**json.loads(line), "output": "imported"}, ensure_ascii=False,
                         separators=(",", ":")) + "\n" for line in full]  # exec never reruns
    (tmp_path / "half.jsonl").write_text("".join(marked[::2]))
    cr("init", "c.toml", "new.sqlite")
    counts = session_record.import_(tmp_path / "half.jsonl", tmp_path / "new.sqlite", tmp_path)
    assert counts["imported"] == len(full[::2]) and counts["pending"] == len(full[1::2])
    cr("exec", "c.toml", "new.sqlite")
    session_record.pin(tmp_path / "new.sqlite", tmp_path)
    session_record.export(tmp_path / "new.sqlite", tmp_path / "again.jsonl")
    expected = [marked[n] if n % 2 == 0 else line for n, line in enumerate(full)]
    assert (tmp_path / "again.jsonl").read_text() == "".join(expected)


# -- pending_diffs.py ---------------------------------------------------------------------------

pending_diffs = _load("pending_diffs")


def test_pending_diffs_plant_each_mutant_in_memory_and_show_its_lines(run, tmp_path):
    """Every pending mutant of the half-run session is listed once, with the changed line as
    cosmic-ray plants it; the survivors are listed with --surviving; no file is touched."""
    from cosmic_ray.work_db import WorkDB, use_db
    with use_db(run, WorkDB.Mode.open) as db:
        pending = {item.job_id for item in db.pending_work_items}
        surviving = {item.job_id for item, result in db.completed_work_items
                     if result.test_outcome == session_record.TestOutcome.SURVIVED}
    blocks = list(pending_diffs.mutant_blocks(run, root=tmp_path))
    assert {job for job, *_ in blocks} == pending and len(blocks) == len(pending)
    assert {job for job, *_ in pending_diffs.mutant_blocks(run, True, tmp_path)} == surviving
    b_lines = [lines for _, module, *_, lines in blocks if module == "pkg/b.py"]
    assert b_lines and all(len(lines) == 2 and lines[0] == "-2     return a * 2 < 5"
                           and lines[1].startswith("+2     return a ") for lines in b_lines)
    assert len({lines[1] for lines in b_lines}) == len(b_lines)  # each mutant its own line
    for _, _, _, _, lines in blocks:
        assert lines and lines[0].startswith("-") and lines[-1].startswith("+")
    assert (tmp_path / "pkg" / "a.py").read_text() == A_SOURCE
    assert (tmp_path / "pkg" / "b.py").read_text() == B_SOURCE


def test_changed_lines_numbers_each_side():
    assert pending_diffs.changed_lines("a\nb\nc\n", "a\nB\nc\n") == ["-2 b", "+2 B"]
    assert pending_diffs.changed_lines("a\nb\n", "a\nb\n") == []


def test_rerun_survivors_leaves_the_recorded_survivors_pending(run, tmp_path, capsys):
    """With --rerun-survivors the survivors run again (against the tests as they are now);
    every other recorded result is imported as without it."""
    records = [json.loads(line) for line in open("record.jsonl")]
    survivors = sum(r["test"] == "survived" for r in records)
    assert survivors and survivors < len(records)
    new = _session(tmp_path, "new.sqlite")
    session_record.main(["import", "record.jsonl", new, "--rerun-survivors"])
    done, pending = _outcomes(run)
    new_done, new_pending = _outcomes(new)
    surviving = {k for k, r in done.items() if r.test_outcome == session_record.TestOutcome.SURVIVED}
    assert new_done.keys() == done.keys() - surviving
    assert new_pending == pending | surviving
    assert (f"{len(records) - survivors} imported, 0 dropped (module changed), 0 unmatched, "
            f"{len(new_pending)} pending ({survivors} survivors to run again)") \
        in capsys.readouterr().out
