#!/usr/bin/env bash
# Run cosmic-ray on the given configurations of mutation/, one after the other (never two at
# once), each in its own scratch copy /tmp/fastelm-mutation-NAME of the repository's fastelm/,
# tests/, setup.cfg and mutation/ (cosmic-ray edits the module in place while it runs):
#
#     bash mutation/run_cosmic_ray.sh confounds metrics      # mutation/confounds.toml, ...
#     bash mutation/run_cosmic_ray.sh --no-fork confounds    # a fresh python per mutant
#     bash mutation/run_cosmic_ray.sh --coverage model_selection   # covering tests first
#
# By default each mutant's pytest is forked from a server that has imported the libraries once
# (mutation/forked.py: the configuration's test command rewritten to `forked.py run`), which
# saves the seconds of imports every mutant otherwise pays; --no-fork runs the configuration's
# test command as written. --coverage first maps each line of the module to the tests that
# execute it (one run under coverage, each test its own context) and runs a mutant's covering
# tests first: when they fail the mutant is killed, otherwise the full selection decides.
# Each copy's report.txt gets the counts and the survivors' diffs; a configuration whose tests
# fail before any mutant is planted is skipped (its baseline.txt says why). Everything runs
# under nice -n 15; a configuration's `ulimit -t` (CPU seconds) stops a hung mutant whatever the
# machine's load, and its wall-clock `timeout` is long, so that a slow machine kills nothing.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fork=1 coverage=0
if [ "${1:-}" = "--no-fork" ]; then fork=0; shift; fi
if [ "${1:-}" = "--coverage" ]; then coverage=1; shift; fi
for name in "$@"; do
    config="mutation/$name.toml"
    copy="/tmp/fastelm-mutation-$name"
    rm -rf "$copy" && mkdir -p "$copy"
    # -p keeps the sources' times, so the kernels compiled for an earlier copy at this path
    # (cached outside it) stay valid: a run starts without minutes of compiling
    cp -rp "$root/fastelm" "$root/tests" "$root/setup.cfg" "$root/mutation" "$copy/"
    export NUMBA_CACHE_DIR="/tmp/fastelm-mutation-numba-cache"
    cd "$copy" || exit 1
    server=""
    if [ "$fork" = 1 ]; then
        socket="$copy/forked.sock"
        nice -n 15 python mutation/forked.py serve "$socket" > forked.log 2>&1 &
        server=$!
        for _ in $(seq 120); do [ -S "$socket" ] && break; sleep 1; done
        map=""
        if [ "$coverage" = 1 ]; then
            map="$copy/coverage-map.json"
            nice -n 15 python mutation/forked.py cover "$config" "$map" > coverage.txt 2>&1 \
                || { echo "$name: the coverage run failed (see $copy/coverage.txt)"; kill "$server"; continue; }
        fi
        python - "$config" "$socket" "$map" <<'PY'
import json, re, sys
sys.path.insert(0, "mutation")
import tomllib
from forked import rewrite
path, socket, map = sys.argv[1:]
text = open(path).read()
command = rewrite(tomllib.loads(text)["cosmic-ray"]["test-command"], socket, map or None)
text = re.sub(r"(?m)^test-command = .*$", lambda _: "test-command = " + json.dumps(command), text)
open(path, "w").write(text)
PY
    fi
    command=$(python -c "import sys, tomllib; print(tomllib.load(open(sys.argv[1], 'rb'))['cosmic-ray']['test-command'])" "$config")
    if ! nice -n 15 bash -c "$command" > baseline.txt 2>&1; then
        echo "$name: the tests fail before mutation (see $copy/baseline.txt)"
        [ -n "$server" ] && kill "$server"
        continue
    fi
    cosmic-ray init "$config" session.sqlite
    cr-filter-operators session.sqlite "$config"
    python mutation/annotation_filter.py session.sqlite
    start=$(date +%s)
    nice -n 15 cosmic-ray exec "$config" session.sqlite
    seconds=$(( $(date +%s) - start ))
    [ -n "$server" ] && kill "$server"
    run=$(sqlite3 session.sqlite "select count(*) from work_results where worker_outcome = 'NORMAL'" 2>/dev/null || echo 0)
    {
        echo "$name: $seconds s, $run mutants run, $(( seconds / (run > 0 ? run : 1) )) s per mutant"
        cr-report session.sqlite --show-pending | tail -3
        cr-report session.sqlite --show-diff --surviving-only
    } > report.txt 2>&1
    head -4 report.txt
done
