"""Run the hand-written mutants of ``mutation/hand_mutants.toml`` and report each one.

    python mutation/hand_mutants.py                  # every mutant
    python mutation/hand_mutants.py --only ID ...    # some of them
    python mutation/hand_mutants.py --list           # the list, nothing run

cosmic-ray's operators swap one operator or constant at a time; a reviewer's bugs are often
of other kinds (two arguments of the same type swapped, a ``.copy()`` dropped, a transformer
fitted on the wrong rows, a target coding or a reset lost, a clamp removed, the order of a
tie), so they are written down by hand: each is one exact text edit ``old`` → ``new`` of one
module, with the tests that should catch it. The repository's ``fastelm/``, ``tests/`` and
``setup.cfg`` are copied to a temporary folder once; every mutant is planted in that copy, its
tests run (``python -m pytest -x -q -p no:cacheprovider TESTS`` from the copy's root), and the
file restored. The working tree is never edited. Before the mutants, each distinct test
selection runs once on the unmutated copy: a selection that fails there makes its mutants
``broken``, not killed.

A mutant is *killed* when its tests fail (or time out), *survived* when they pass. A mutant
known to survive carries ``status`` (``equivalent`` or ``out of scope``) and ``reason``;
the exit status is 1 when a mutant survives without one, when a classified mutant is killed
(its classification is stale) or when a mutant no longer applies (``old`` is not found
exactly once: the module changed), else 0.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = Path(__file__).resolve().parent / "hand_mutants.toml"
COPIED = ("fastelm", "tests", "setup.cfg")
CLASSIFIED = ("equivalent", "out of scope")


def load(path=LIST):
    """The mutants of the TOML list, each checked for its keys."""
    with open(path, "rb") as f:
        mutants = tomllib.load(f)["mutant"]
    seen = set()
    for m in mutants:
        missing = {"id", "module", "kind", "old", "new", "tests"} - set(m)
        if missing:
            raise ValueError(f"mutant {m.get('id', '?')}: missing {sorted(missing)}")
        if m["id"] in seen:
            raise ValueError(f"mutant id {m['id']!r} is listed twice")
        seen.add(m["id"])
        if m.get("status") not in (None,) + CLASSIFIED or (m.get("status") and
                                                             not m.get("reason")):
            raise ValueError(f"mutant {m['id']}: status must be one of {CLASSIFIED}, with a "
                             "reason")
    return mutants


def _pytest(copy, tests, timeout):
    """(outcome, seconds) of the tests in the copy: 'pass', 'fail' or 'timeout'."""
    command = f"{sys.executable} -m pytest -x -q -p no:cacheprovider {tests}"
    start = time.perf_counter()
    try:
        done = subprocess.run(command, shell=True, cwd=copy, capture_output=True,
                              timeout=timeout, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start
    outcome = "pass" if done.returncode == 0 else "fail"
    if done.returncode == 5:  # no test collected: the selection is wrong, not the code
        outcome = "no tests"
    return outcome, time.perf_counter() - start


def run(mutants, timeout, baseline=True, out=sys.stdout):
    """Plant each mutant in a scratch copy, run its tests; returns the report rows."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="fastelm-hand-mutants-") as copy:
        for name in COPIED:
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy2)(
                source, Path(copy) / name,
                **({"ignore": shutil.ignore_patterns("__pycache__")} if source.is_dir() else {}))
        healthy = {}
        if baseline:
            for tests in dict.fromkeys(m["tests"] for m in mutants):
                healthy[tests], seconds = _pytest(copy, tests, timeout)
                print(f"baseline {healthy[tests]:8s} {seconds:6.1f} s  {tests}", file=out,
                      flush=True)
        for m in mutants:
            path = Path(copy) / m["module"]
            original = path.read_text()
            count = original.count(m["old"])
            if count != 1:
                result, seconds = f"stale (old found {count} times)", 0.0
            elif healthy.get(m["tests"], "pass") != "pass":
                result, seconds = "broken (tests fail unmutated)", 0.0
            else:
                path.write_text(original.replace(m["old"], m["new"]))
                try:
                    outcome, seconds = _pytest(copy, m["tests"], timeout)
                finally:
                    path.write_text(original)
                result = {"pass": "survived", "fail": "killed", "timeout": "killed (timeout)",
                          "no tests": "broken (no test selected)"}[outcome]
            status = m.get("status")
            if result == "survived" and status:
                verdict = f"survived: {status}"
            elif result.startswith("killed") and status:
                verdict = f"{result}: STALE classification '{status}'"
            else:
                verdict = result
            rows.append((m["id"], m["module"], m["kind"], verdict, seconds))
            print(f"{m['id']:34s} {verdict:40s} {seconds:6.1f} s", file=out, flush=True)
    return rows


def _ok(verdict):
    return verdict.startswith("killed") and "STALE" not in verdict or \
        verdict.startswith("survived:")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="ID", help="run these mutants only")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds for one mutant's tests (default 600)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the run of each test selection on the unmutated copy")
    args = parser.parse_args(argv)
    mutants = load()
    if args.only:
        unknown = set(args.only) - {m["id"] for m in mutants}
        if unknown:
            parser.error(f"unknown mutant id(s): {sorted(unknown)}")
        mutants = [m for m in mutants if m["id"] in args.only]
    if args.list:
        for m in mutants:
            print(f"{m['id']:34s} {m['module']:42s} {m['kind']}")
        return 0
    rows = run(mutants, args.timeout, baseline=not args.no_baseline)
    killed = sum(v.startswith("killed") and "STALE" not in v for _, _, _, v, _ in rows)
    classified = sum(v.startswith("survived:") for _, _, _, v, _ in rows)
    bad = [(i, v) for i, _, _, v, _ in rows if not _ok(v)]
    print(f"{len(rows)} mutants: {killed} killed, {classified} survived and classified, "
          f"{len(bad)} to look at" + "".join(f"\n  {i}: {v}" for i, v in bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
