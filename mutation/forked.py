"""Run a mutant's pytest in a process forked from one that has imported the libraries already.

A mutant's test command spends seconds importing numpy, scipy, scikit-learn, Numba, pytest and
the optional libraries before its first test; a mutant of a module whose tests take a second or
two pays that import every time. Here one *server* imports them once (never fastelm, whose
mutated source each mutant must import afresh) and forks a child per request; the child sets the
request's environment and CPU limit, changes to its folder and runs ``pytest.main``::

    python mutation/forked.py serve SOCKET &                   # once, in the scratch copy
    python mutation/forked.py run SOCKET [--cpu N] [--env NAME=VALUE ...] -- PYTEST-ARGS

``run`` (the test command cosmic-ray calls) prints the child's output and exits with its code:
0 when the tests pass, so cosmic-ray reads the outcome as from ``python -m pytest``. A child
gets a fresh CPU-time count (``ulimit -t``'s limit applies to it alone), runs with
``PYTHONDONTWRITEBYTECODE`` as cosmic-ray's own test processes do, and is killed if ``run``
goes away (cosmic-ray's timeout). ``--env NUMBA_DISABLE_JIT=1`` works although Numba was
imported first: the child reloads Numba's configuration before anything compiles.
``run_cosmic_ray.sh --fork`` starts a server per configuration and rewrites the test command.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import gc
import importlib
import importlib.metadata
import json
import os
import re
import resource
import select
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PRELOAD = (
    "numpy", "scipy.linalg", "scipy.stats", "scipy.sparse", "sklearn", "sklearn.base",
    "sklearn.utils.estimator_checks", "sklearn.model_selection", "sklearn.linear_model",
    "sklearn.covariance", "sklearn.svm", "numba", "pytest", "threadpoolctl",
    "pandas", "matplotlib", "matplotlib.pyplot", "dask", "dask.array", "distributed", "nilearn",
    "nilearn.connectome", "onnx", "onnxruntime", "skl2onnx", "river", "tqdm", "SALib",
)


def _child(request: dict, output: int) -> None:
    """In the forked child: the request's environment, CPU limit and folder, then pytest."""
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.setsid()
    os.environ.update(request["env"])
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    sys.dont_write_bytecode = True
    if request["cpu"]:
        resource.setrlimit(resource.RLIMIT_CPU, (request["cpu"], request["cpu"]))
    if "numba" in sys.modules:
        sys.modules["numba"].core.config.reload_config()
    if "dask" in sys.modules:  # DASK_* variables are read at import: read them again
        sys.modules["dask"].config.refresh()
    os.chdir(request["cwd"])
    sys.path.insert(0, request["cwd"])
    import pytest

    # the plugins imported here before pytest could rewrite their asserts: not a test's concern
    code = pytest.main(["-W", "ignore::pytest.PytestAssertRewriteWarning"] + request["args"])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(code))


def _serve_one(connection: socket.socket) -> None:
    with connection:
        data = b""
        while not data.endswith(b"\n"):
            chunk = connection.recv(65536)
            if not chunk:
                return
            data += chunk
        request = json.loads(data)
        with tempfile.TemporaryFile() as log:
            pid = os.fork()
            if pid == 0:
                try:
                    _child(request, log.fileno())
                finally:
                    os._exit(3)
            status = None
            while status is None:
                ready, _, _ = select.select([connection], [], [], 0.2)
                if ready and not connection.recv(1, socket.MSG_PEEK):
                    os.killpg(pid, signal.SIGKILL)  # the client went away: cosmic-ray's timeout
                done, raw = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = raw
            code = os.waitstatus_to_exitcode(status)
            log.seek(0)
            text = log.read().decode("utf-8", "replace")
        if code < 0:  # a signal: SIGXCPU at the CPU limit, SIGKILL
            text += f"\nforked: the tests were stopped by signal {-code}\n"
            code = 128 - code
        try:
            connection.sendall(json.dumps({"code": code, "output": text}).encode() + b"\n")
        except OSError:
            pass


def serve(path: str) -> None:
    """Import the libraries, then fork a child for every request on the Unix socket `path`."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # an optional library that is missing or broken: the child imports it
            pass
    # pytest's plugins (imported with assertion rewriting, seconds, in every child otherwise)
    for entry in importlib.metadata.entry_points(group="pytest11"):
        try:
            entry.load()
        except Exception:
            pass
    if any(name == "fastelm" or name.startswith("fastelm.") for name in sys.modules):
        raise SystemExit("forked: a preloaded library imported fastelm; mutants would not see it")
    gc.freeze()  # the libraries' objects: never collected, never copied, in a child
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    print(f"forked: serving on {path}", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=_serve_one, args=(connection,), daemon=True).start()


def _ask(path: str, cpu: int, env: list[str], args: list[str]) -> tuple[int, str]:
    """One pytest run by the server at `path`: its exit code and output."""
    request = {"cwd": os.getcwd(), "cpu": cpu, "args": args,
               "env": dict(item.split("=", 1) for item in env)}
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for attempt in range(600):  # a server still importing: wait, never fail (a false kill)
        try:
            client.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            time.sleep(0.5)
    else:
        raise SystemExit(f"forked: no server at {path}")
    client.sendall(json.dumps(request).encode() + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        chunk = client.recv(1 << 20)
        if not chunk:
            return 4, "forked: the server closed the connection without an answer\n"
        data += chunk
    answer = json.loads(data)
    return answer["code"], answer["output"]


def run(path: str, cpu: int, env: list[str], args: list[str], coverage: str | None = None,
        covering_only: bool = False) -> int:
    """Send one pytest run to the server at `path`; print its output, return its exit code.

    With `coverage` (the map `cover` wrote), first only the tests that executed the mutated
    lines: a failure there is the outcome (every test it runs is in the full selection); if they
    pass, the full selection decides, so a survivor is always one of the whole selection. With
    `covering_only` their pass decides too (a test that never executes the changed statement
    runs as before it): the full selection runs only for a statement run at import or by no
    test."""
    if coverage is not None:
        tests = covering_tests(coverage)
        if tests:
            code, output = _ask(path, cpu, env, _options(args) + tests)
            if code not in (0, 4, 5) or (covering_only and code == 0):
                # 4, 5: a node id pytest did not find; the full run
                sys.stdout.write(f"forked: {len(tests)} covering tests\n" + output)
                return code
    code, output = _ask(path, cpu, env, args)
    sys.stdout.write(output)
    return code


def _options(args: list[str]) -> list[str]:
    """pytest's options of `args` without its paths and its -k expression."""
    kept, words = [], iter(args)
    for word in words:
        if word in ("-k", "-m"):
            next(words, None)
        elif word in ("-p", "-W", "-o", "--tb"):
            kept += [word, next(words, "")]
        elif word.startswith("-"):
            kept.append(word)
    return kept


def _header_lines(tree: ast.AST) -> dict[int, range]:
    """For each line of the source, the lines of the statement (a compound statement's header
    only) that holds it."""
    lines: dict[int, range] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            body = [child for field in ("body", "orelse", "finalbody", "handlers", "cases")
                    for child in getattr(node, field, []) or []]
            end = min([child.lineno - 1 for child in body] + [node.end_lineno])
            end = max(end, node.lineno)
            span = range(node.lineno, end + 1)
            for line in span:
                if line not in lines or len(span) < len(lines[line]):
                    lines[line] = span
    return lines


def covering_tests(path: str) -> list[str]:
    """The tests (node ids) that executed a statement whose text differs from the pristine copy,
    or [] when one of them ran at import or no test ran it (then the full selection decides).

    A statement a test's setup or teardown ran (a fixture, maybe module- or class-scoped, whose
    value later tests share) brings every test of that test's file."""
    with open(path) as handle:
        record = json.load(handle)
    tests: set[str] = set()
    changed = False
    for name, lines in record["lines"].items():
        pristine = record["pristine"][name]
        with open(name) as handle:
            current = handle.read()
        if current == pristine:
            continue
        changed = True
        matcher = difflib.SequenceMatcher(None, pristine.splitlines(), current.splitlines(),
                                          autojunk=False)
        touched = {line + 1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal"
                   for line in range(i1, max(i2, i1 + 1))}
        spans = _header_lines(ast.parse(pristine))
        fixtures = record["fixtures"][name]
        by_file: dict[str, list[str]] = {}
        for test in record["tests"]:
            by_file.setdefault(test.split("::")[0], []).append(test)
        for line in touched:
            for statement_line in spans.get(line, [line]):
                contexts = lines.get(str(statement_line), [])
                if "" in contexts:
                    return []
                tests.update(contexts)
                for test in fixtures.get(str(statement_line), []):
                    tests.update(by_file[test.split("::")[0]])
    return _fastest_first(tests, record.get("durations", {})) if changed else []


def _fastest_first(tests: set[str], durations: dict[str, float]) -> list[str]:
    """`tests` file by file (a module-scoped fixture is set up once), each file's fastest first:
    under pytest's -x a mutant is killed by the first failing test, so the cheap ones go first
    (a map without durations: by name)."""
    return sorted(tests, key=lambda test: (test.split("::")[0], durations.get(test, 0.0), test))


def _durations(output: str) -> dict[str, float]:
    """Each test's setup, call and teardown seconds added up, from the table pytest's
    ``--durations=0 --durations-min=0`` prints."""
    seconds: dict[str, float] = {}
    for value, test in re.findall(r"(?m)^([0-9.]+)s (?:setup|call|teardown) +(\S.*?)\s*$",
                                  output):
        seconds[test] = seconds.get(test, 0.0) + float(value)
    return seconds


def _timed_pytest(limit: str, arguments: list[str], env: dict) -> tuple[int, dict[str, float]]:
    """pytest with `arguments` (its output passed on): its exit code and each test's seconds."""
    done = subprocess.run(["bash", "-c", limit + 'exec python -m pytest "$@"', "pytest",
                           "--durations=0", "--durations-min=0"] + arguments,
                          env=env, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(done.stdout)
    sys.stdout.flush()
    return done.returncode, _durations(done.stdout)


# Lines run in worker processes (forked or started: Dask's nannies, multiprocessing, loky) are
# measured too, with no test context (""): their mutants go to the whole selection, since no
# single test can be credited with a worker's work.
WORKER_COVERAGE = """\
[run]
parallel = true
concurrency = thread, multiprocessing
patch = fork, subprocess, _exit
sigterm = true
"""


def cover(config_path: str, out: str) -> int:
    """Run the configuration's tests once under coverage with each test as its context and
    write, for each line of its modules, the tests that executed it (and the pristine text)."""
    import tomllib

    import coverage

    with open(config_path, "rb") as handle:
        config = tomllib.load(handle)["cosmic-ray"]
    items, cpu, words = parse(config["test-command"])
    env = dict(os.environ, COVERAGE_FILE=".coverage.forked")
    env.update(item.split("=", 1) for item in items)
    modules = config["module-path"]
    modules = modules if isinstance(modules, list) else [modules]
    files = sorted(str(path) for module in map(Path, modules)
                   for path in (module.rglob("*.py") if module.is_dir() else [module]))
    limit = f"ulimit -t {4 * cpu}; " if cpu else ""  # coverage's tracing: ~2-4 × slower
    with open(".coveragerc.forked", "w") as handle:
        handle.write(WORKER_COVERAGE)
    arguments = ["--cov=fastelm", "--cov-config=.coveragerc.forked", "--cov-context=test",
                 "--cov-report="] + words
    code, seconds = _timed_pytest(limit, arguments, env)
    if code != 0:
        return code
    data = coverage.CoverageData(".coverage.forked")
    data.read()
    record: dict = {"lines": {}, "fixtures": {}, "pristine": {}, "durations": seconds,
                    "workers": True}  # workers' lines measured (a map without is made again)
    for measured in data.measured_files():
        name = os.path.relpath(measured)
        if name not in files:
            continue
        contexts = data.contexts_by_lineno(measured)
        phases = {line: [_test_and_phase(context) for context in names]
                  for line, names in contexts.items()}
        record["lines"][name] = {str(line): sorted({test for test, _ in pairs})
                                 for line, pairs in phases.items()}
        record["fixtures"][name] = {str(line): sorted({test for test, phase in pairs
                                                       if test and phase != "run"})
                                    for line, pairs in phases.items()}
    record["tests"] = sorted({test for test, _ in map(_test_and_phase, data.measured_contexts())
                              if test})
    for name in files:
        record["lines"].setdefault(name, {})
        record["fixtures"].setdefault(name, {})
        with open(name) as handle:
            record["pristine"][name] = handle.read()
    with open(out, "w") as handle:
        json.dump(record, handle)
    covered = sum(len(lines) for lines in record["lines"].values())
    print(f"forked: {covered} lines of {len(files)} files mapped to their tests in {out}")
    return 0


def _test_and_phase(context: str) -> tuple[str, str]:
    """pytest-cov's context ``node-id|setup``, ``|run`` or ``|teardown`` as (node id, phase);
    ("", "") for the import-time context."""
    test, _, phase = context.rpartition("|")
    return test, phase


def parse(command: str) -> tuple[list[str], int, list[str]]:
    """A configuration's test command (``env NAME=VALUE ...``, ``bash -c "ulimit -t N; exec
    python -m pytest ..."`` or ``python -m pytest ...``): its NAME=VALUE items, its CPU limit
    (0: none) and pytest's arguments."""
    words = shlex.split(command)
    env, cpu = [], 0
    while words:
        if words[0] == "env":
            words = words[1:]
        elif "=" in words[0] and not words[0].startswith("-"):
            env.append(words.pop(0))
        elif words[0] == "bash" and words[1:2] == ["-c"] and len(words) == 3:
            limit, _, rest = words[2].partition(";")
            match = re.fullmatch(r"\s*ulimit -t (\d+)\s*", limit)
            if not match or not rest.strip().startswith("exec "):
                raise SystemExit(f"forked: cannot rewrite {command!r}")
            cpu = int(match.group(1))
            words = shlex.split(rest.strip()[len("exec "):])
        else:
            break
    if words[:3] != ["python", "-m", "pytest"]:
        raise SystemExit(f"forked: not a pytest command: {command!r}")
    return env, cpu, words[3:]


def rewrite(command: str, path: str, coverage: str | None = None,
            covering_only: bool = False) -> str:
    """The `run` command for a configuration's test command (see `parse`)."""
    env, cpu, args = parse(command)
    options = [f"--cpu {cpu}"] + [f"--env {shlex.quote(item)}" for item in env]
    options += [f"--coverage {shlex.quote(coverage)}"] if coverage else []
    options += ["--covering-only"] if coverage and covering_only else []
    return shlex.join(["python", "mutation/forked.py", "run", path]) + " " + " ".join(options) + " -- " + shlex.join(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="import the libraries and serve")
    serve_parser.add_argument("socket")
    run_parser = commands.add_parser("run", help="run pytest with the given arguments")
    run_parser.add_argument("socket")
    run_parser.add_argument("--cpu", type=int, default=0, help="CPU seconds (ulimit -t)")
    run_parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    run_parser.add_argument("--coverage", help="the map `cover` wrote: covering tests first")
    run_parser.add_argument("--covering-only", action="store_true",
                            help="with --coverage: the covering tests decide")
    run_parser.add_argument("args", nargs="*", help="after --: pytest's arguments")
    cover_parser = commands.add_parser("cover", help="map each line to the tests that ran it")
    cover_parser.add_argument("config")
    cover_parser.add_argument("out")
    rewrite_parser = commands.add_parser("rewrite", help="print the run command for a config")
    rewrite_parser.add_argument("config")
    rewrite_parser.add_argument("socket")
    rewrite_parser.add_argument("--coverage", help="the map `cover` wrote")
    rewrite_parser.add_argument("--covering-only", action="store_true",
                                help="with --coverage: the covering tests decide")
    argv = sys.argv[1:] if argv is None else argv
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    options = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if options.command == "rewrite":
        import tomllib

        with open(options.config, "rb") as handle:
            config = tomllib.load(handle)
        print(rewrite(config["cosmic-ray"]["test-command"], options.socket, options.coverage,
                      options.covering_only))
        return 0
    if options.command == "serve":
        serve(options.socket)
        return 0
    if options.command == "cover":
        return cover(options.config, options.out)
    return run(options.socket, options.cpu, options.env, options.args + pytest_args,
               options.coverage, options.covering_only)


if __name__ == "__main__":
    sys.exit(main())
