#!/usr/bin/env bash
# Run cosmic-ray on the given configurations of mutation/, one after the other (never two at
# once), each in its own scratch copy /tmp/fastelm-mutation-NAME of the repository's fastelm/,
# tests/, setup.cfg and mutation/ (cosmic-ray edits the module in place while it runs):
#
#     bash mutation/run_cosmic_ray.sh confounds metrics      # mutation/confounds.toml, ...
#
# Each copy's report.txt gets the counts and the survivors' diffs; a configuration whose tests
# fail before any mutant is planted is skipped (its baseline.txt says why). Everything runs
# under nice -n 15; a configuration's `ulimit -t` (CPU seconds) stops a hung mutant whatever the
# machine's load, and its wall-clock `timeout` is long, so that a slow machine kills nothing.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
for name in "$@"; do
    config="mutation/$name.toml"
    copy="/tmp/fastelm-mutation-$name"
    rm -rf "$copy" && mkdir -p "$copy"
    # -p keeps the sources' times, so the kernels compiled for an earlier copy at this path
    # (cached outside it) stay valid: a run starts without minutes of compiling
    cp -rp "$root/fastelm" "$root/tests" "$root/setup.cfg" "$root/mutation" "$copy/"
    export NUMBA_CACHE_DIR="/tmp/fastelm-mutation-numba-cache"
    cd "$copy" || exit 1
    command=$(python -c "import sys, tomllib; print(tomllib.load(open(sys.argv[1], 'rb'))['cosmic-ray']['test-command'])" "$config")
    if ! nice -n 15 bash -c "$command" > baseline.txt 2>&1; then
        echo "$name: the tests fail before mutation (see $copy/baseline.txt)"
        continue
    fi
    cosmic-ray init "$config" session.sqlite
    cr-filter-operators session.sqlite "$config"
    python mutation/annotation_filter.py session.sqlite
    start=$(date +%s)
    nice -n 15 cosmic-ray exec "$config" session.sqlite
    seconds=$(( $(date +%s) - start ))
    run=$(sqlite3 session.sqlite "select count(*) from work_results where worker_outcome = 'NORMAL'" 2>/dev/null || echo 0)
    {
        echo "$name: $seconds s, $run mutants run, $(( seconds / (run > 0 ? run : 1) )) s per mutant"
        cr-report session.sqlite --show-pending | tail -3
        cr-report session.sqlite --show-diff --surviving-only
    } > report.txt 2>&1
    head -4 report.txt
done
