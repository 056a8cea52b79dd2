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
import importlib
import json
import os
import re
import resource
import select
import shlex
import signal
import socket
import sys
import tempfile
import threading

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
    os.chdir(request["cwd"])
    sys.path.insert(0, request["cwd"])
    import pytest

    code = pytest.main(request["args"])
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
    if any(name == "fastelm" or name.startswith("fastelm.") for name in sys.modules):
        raise SystemExit("forked: a preloaded library imported fastelm; mutants would not see it")
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    print(f"forked: serving on {path}", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=_serve_one, args=(connection,), daemon=True).start()


def run(path: str, cpu: int, env: list[str], args: list[str]) -> int:
    """Send one pytest run to the server at `path`; print its output, return its exit code."""
    request = {"cwd": os.getcwd(), "cpu": cpu, "args": args,
               "env": dict(item.split("=", 1) for item in env)}
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    client.sendall(json.dumps(request).encode() + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        chunk = client.recv(1 << 20)
        if not chunk:
            print("forked: the server closed the connection without an answer")
            return 4
        data += chunk
    answer = json.loads(data)
    sys.stdout.write(answer["output"])
    return answer["code"]


def rewrite(command: str, path: str) -> str:
    """The `run` command for a configuration's test command (``env NAME=VALUE ...``, ``bash -c
    "ulimit -t N; exec python -m pytest ..."`` or ``python -m pytest ...``)."""
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
    options = [f"--cpu {cpu}"] + [f"--env {shlex.quote(item)}" for item in env]
    return shlex.join(["python", "mutation/forked.py", "run", path]) + " " + " ".join(options) + " -- " + shlex.join(words[3:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="import the libraries and serve")
    serve_parser.add_argument("socket")
    run_parser = commands.add_parser("run", help="run pytest with the given arguments")
    run_parser.add_argument("socket")
    run_parser.add_argument("--cpu", type=int, default=0, help="CPU seconds (ulimit -t)")
    run_parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    run_parser.add_argument("args", nargs="*", help="after --: pytest's arguments")
    rewrite_parser = commands.add_parser("rewrite", help="print the run command for a config")
    rewrite_parser.add_argument("config")
    rewrite_parser.add_argument("socket")
    argv = sys.argv[1:] if argv is None else argv
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    options = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if options.command == "rewrite":
        import tomllib

        with open(options.config, "rb") as handle:
            config = tomllib.load(handle)
        print(rewrite(config["cosmic-ray"]["test-command"], options.socket))
        return 0
    if options.command == "serve":
        serve(options.socket)
        return 0
    return run(options.socket, options.cpu, options.env, options.args + pytest_args)


if __name__ == "__main__":
    sys.exit(main())
