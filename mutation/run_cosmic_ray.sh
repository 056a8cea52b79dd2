#!/usr/bin/env bash
# Run cosmic-ray on the given configurations of mutation/, one after the other (never two at
# once), each in its own scratch copy /tmp/fastelm-mutation-NAME of the repository's fastelm/,
# tests/, setup.cfg and mutation/ (cosmic-ray edits the module in place while it runs):
#
#     bash mutation/run_cosmic_ray.sh confounds metrics      # mutation/confounds.toml, ...
#     bash mutation/run_cosmic_ray.sh --no-fork confounds    # a fresh python per mutant
#     bash mutation/run_cosmic_ray.sh --coverage model_selection   # covering tests first
#     bash mutation/run_cosmic_ray.sh --covering-only dask  # covering tests decide
#     bash mutation/run_cosmic_ray.sh --resume connectome    # go on with a stopped run
#     bash mutation/run_cosmic_ray.sh --record-only onnx     # write a session's record now
#     bash mutation/run_cosmic_ray.sh --rerun-survivors onnx # survivors against today's tests
#
# By default each mutant's pytest is forked from a server that has imported the libraries once
# (mutation/forked.py: the configuration's test command rewritten to `forked.py run`), which
# saves the seconds of imports every mutant otherwise pays; --no-fork runs the configuration's
# test command as written. --coverage first maps each line of the module to the tests that
# execute it (one run under coverage, each test its own context) and runs a mutant's covering
# tests first: when they fail the mutant is killed, otherwise the full selection decides.
# The covering tests run file by file, each file's fastest first (their seconds, measured in the
# coverage run, are in the map), so that -x stops a killed mutant's run early.
# --covering-only lets the covering tests decide (a test that never executes the changed
# statement cannot tell the mutant from the original); a statement run at import or by no test
# still goes to the full selection.
# Each copy's report.txt gets the counts and the survivors' diffs; a configuration whose tests
# fail before any mutant is planted is skipped (its baseline.txt says why). Everything runs
# under nice -n 15; a configuration's `ulimit -t` (CPU seconds) stops a hung mutant whatever the
# machine's load, and its wall-clock `timeout` is long, so that a slow machine kills nothing.
#
# The copy does not outlive the machine: while cosmic-ray runs (every --record-every seconds,
# 600 by default, 0 for never), when it ends and when the command is stopped (INT, TERM, HUP),
# the session's completed mutants are written to the repository's mutation/sessions/NAME.jsonl
# (mutation/session_record.py export; commit it to keep it). --resume NAME on a machine without
# the copy makes a fresh one, initialises and filters a session, imports that record (the
# records of a module changed since are dropped: its mutants run again) and runs the rest.
# --record-only writes the record of a running or stopped session and runs nothing.
# --rerun-survivors NAME resumes from the record in a fresh copy of today's fastelm/ and tests/
# with the recorded survivors left pending: they run again, so the tests written since the
# run was made decide them (a stopped copy's session is recorded first).
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fork=1 coverage=0 covering=0 resume=0 record_only=0 every=600 rerun=0
while [ $# -gt 0 ]; do
    case "$1" in
        --no-fork) fork=0 ;;
        --coverage) coverage=1 ;;
        --covering-only) coverage=1 covering=1 ;;
        --resume) resume=1 ;;
        --rerun-survivors) resume=1 rerun=1 ;;
        --record-only) record_only=1 ;;
        --record-every) every=$2; shift ;;
        *) break ;;
    esac
    shift
done
name="" copy="" server="" running="" recording=0
record() {
    # the session's record into the repository (atomically; the module hashes are those pinned
    # at init, or the repository's for a session made before pins)
    [ "$recording" = 1 ] && [ -f "$copy/session.sqlite" ] || return 0
    nice -n 15 python "$root/mutation/session_record.py" export "$copy/session.sqlite" \
        "$root/mutation/sessions/$name.jsonl" --root "$root" \
        || echo "$name: the record could not be written"
}
stop() {
    # stopped: cosmic-ray and the server stopped, the record written (a stopped cosmic-ray may
    # leave a mutant in the copy: --resume puts the repository's files back)
    trap - INT TERM HUP
    [ -n "$running" ] && kill "$running" 2>/dev/null && wait "$running"
    [ -n "$server" ] && kill "$server" 2>/dev/null
    record
    exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM
trap 'stop 129' HUP
for name in "$@"; do
    config="mutation/$name.toml"
    copy="/tmp/fastelm-mutation-$name"
    recording=0 server=""
    if [ "$record_only" = 1 ]; then
        recording=1
        [ -f "$copy/session.sqlite" ] && record || echo "$name: no session in $copy"
        continue
    fi
    export NUMBA_CACHE_DIR="/tmp/fastelm-mutation-numba-cache"
    fresh=0
    if [ "$resume" = 1 ] && [ -f "$copy/session.sqlite" ] && { [ "$rerun" = 1 ] \
        || ! python "$root/mutation/session_record.py" verify "$copy/session.sqlite" --root "$root"; }; then
        # the repository's module is no longer the session's, or its survivors are to run again
        # on today's tests: the session's record (its pinned hashes) into a fresh session
        recording=1
        record
        recording=0
        rm -rf "$copy"
    fi
    if [ "$resume" = 1 ] && [ ! -f "$copy/session.sqlite" ]; then
        # a new machine: a fresh copy and session, into which the record is imported
        [ -f "$root/mutation/sessions/$name.jsonl" ] \
            || { echo "$name: no session to resume in $copy, no record mutation/sessions/$name.jsonl"; continue; }
        fresh=1
    elif [ "$resume" = 0 ] && [ -f "$root/mutation/sessions/$name.jsonl" ]; then
        echo "$name: a new run, whose record replaces mutation/sessions/$name.jsonl (--resume continues it)"
    fi
    if [ "$resume" = 1 ] && [ "$fresh" = 0 ]; then
        # a stopped run: its copy's mutated files back to the repository's (unchanged since the
        # copy was made), the newest forked.py, the session's pending mutants
        [ -f "$copy/session.sqlite" ] || { echo "$name: no session to resume in $copy"; continue; }
        (cd "$root" && git ls-files fastelm) | while read -r file; do
            cmp -s "$root/$file" "$copy/$file" || { echo "$name: restoring $file"; cp -p "$root/$file" "$copy/$file"; }
        done
        cp -p "$root/mutation/forked.py" "$copy/mutation/"
    else
        rm -rf "$copy" && mkdir -p "$copy"
        # -p keeps the sources' times, so the kernels compiled for an earlier copy at this path
        # (cached outside it) stay valid: a run starts without minutes of compiling
        cp -rp "$root/fastelm" "$root/tests" "$root/setup.cfg" "$root/mutation" "$copy/"
    fi
    cd "$copy" || exit 1
    server=""
    if [ "$fork" = 1 ]; then
        socket="$copy/forked.sock"
        rm -f "$socket"
        nice -n 15 python mutation/forked.py serve "$socket" > forked.log 2>&1 &
        server=$!
        for _ in $(seq 120); do [ -S "$socket" ] && break; sleep 1; done
        map=""
        # a map made before today's `cover` (which records fixtures, the tests' seconds and the
        # workers' lines, and marks the map "workers") is made again
        if [ "$coverage" = 1 ] && ! grep -qs '"workers"' "$copy/coverage-map.json"; then
            map="$copy/coverage-map.json"
            nice -n 15 python mutation/forked.py cover "$root/$config" "$map" > coverage.txt 2>&1 \
                || { echo "$name: the coverage run failed (see $copy/coverage.txt)"; kill "$server"; continue; }
        fi
        [ "$coverage" = 1 ] && map="$copy/coverage-map.json"
        python - "$root/$config" "$config" "$socket" "$map" "$covering" <<'PY'
import json, re, sys
sys.path.insert(0, "mutation")
import tomllib
from forked import rewrite
source, path, socket, map, covering = sys.argv[1:]
text = open(source).read()
command = rewrite(tomllib.loads(text)["cosmic-ray"]["test-command"], socket, map or None,
                  covering == "1")
text = re.sub(r"(?m)^test-command = .*$", lambda _: "test-command = " + json.dumps(command), text)
open(path, "w").write(text)
PY
    fi
    command=$(python -c "import sys, tomllib; print(tomllib.load(open(sys.argv[1], 'rb'))['cosmic-ray']['test-command'])" "$config")
    if [ "$resume" = 0 ] || [ "$fresh" = 1 ]; then
        if ! nice -n 15 bash -c "$command" > baseline.txt 2>&1; then
            echo "$name: the tests fail before mutation (see $copy/baseline.txt)"
            [ -n "$server" ] && kill "$server"
            server=""
            continue
        fi
        cosmic-ray init "$config" session.sqlite
        cr-filter-operators session.sqlite "$config"
        python mutation/annotation_filter.py session.sqlite
        # the modules' hashes before any mutant is planted: the record's
        python "$root/mutation/session_record.py" pin session.sqlite > /dev/null
        [ "$fresh" = 1 ] && python "$root/mutation/session_record.py" import \
            "$root/mutation/sessions/$name.jsonl" session.sqlite \
            $([ "$rerun" = 1 ] && echo --rerun-survivors)
    fi
    recording=1  # from here on the session is the record's (not before an import)
    normal="select count(*) from work_results where worker_outcome = 'NORMAL'"
    before=$(sqlite3 session.sqlite "$normal" 2>/dev/null || echo 0)
    start=$(date +%s) last=$(date +%s)
    nice -n 15 cosmic-ray exec "$config" session.sqlite &
    running=$!
    # wait for cosmic-ray in short sleeps (a trap runs between them), writing the record
    while kill -0 "$running" 2>/dev/null; do
        sleep 5 & wait $!
        if [ "$every" -gt 0 ] && [ $(( $(date +%s) - last )) -ge "$every" ]; then
            record
            last=$(date +%s)
        fi
    done
    wait "$running"
    running=""
    seconds=$(( $(date +%s) - start ))
    [ -n "$server" ] && kill "$server"
    server=""
    record
    after=$(sqlite3 session.sqlite "$normal" 2>/dev/null || echo 0)
    run=$(( after - before ))
    {
        echo "$name: $seconds s, $run mutants run, $(( seconds / (run > 0 ? run : 1) )) s per mutant"
        cr-report session.sqlite --show-pending | tail -3
        cr-report session.sqlite --show-diff --surviving-only
    } > report.txt 2>&1
    head -4 report.txt
done
