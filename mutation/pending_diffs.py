"""Print the mutants of a cosmic-ray session that have not run yet, each as the lines it changes,
so that a module can be read against its tests before (or while) the run is made:

    python mutation/pending_diffs.py session.sqlite              # the pending mutants
    python mutation/pending_diffs.py session.sqlite --surviving  # the survivors, same form

Run it in the scratch copy the session was made in (the module paths are relative to it), on an
unmutated copy of each module: the mutant is planted in memory, never on disk. `cr-report
--show-pending` gives no diff for a mutant that has not run; this does, one block per mutant:
its job id, module, operator and occurrence, then the old and new lines with their numbers.
"""
import argparse
import difflib
import sqlite3
import sys
from pathlib import Path

from cosmic_ray.mutating import mutate_code
from cosmic_ray.plugins import get_operator

PENDING = """select m.job_id, m.module_path, m.operator_name, m.operator_args, m.occurrence
             from mutation_specs m left join work_results r on m.job_id = r.job_id
             where r.job_id is null order by m.module_path, m.start_pos_row, m.start_pos_col,
             m.operator_name, m.occurrence"""
SURVIVING = PENDING.replace("r.job_id is null", "r.test_outcome = 'SURVIVED'")


def changed_lines(source, mutated):
    """The unified diff of one mutant without context: ``-N old`` and ``+N new`` lines."""
    out = []
    matcher = difflib.SequenceMatcher(None, source.splitlines(), mutated.splitlines(),
                                      autojunk=False)
    old, new = source.splitlines(), mutated.splitlines()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out += [f"-{i + 1} {old[i]}" for i in range(i1, i2)]
            out += [f"+{j + 1} {new[j]}" for j in range(j1, j2)]
    return out


def mutant_blocks(session, surviving=False, root="."):
    """(job id, module, operator, occurrence, changed lines) of each selected mutant."""
    import json
    sources = {}
    with sqlite3.connect(f"file:{session}?mode=ro", uri=True) as db:
        rows = db.execute(SURVIVING if surviving else PENDING).fetchall()
    for job, module, name, args, occurrence in rows:
        if module not in sources:
            sources[module] = (Path(root) / module).read_text(encoding="utf-8")
        while isinstance(args, str):  # stored as a JSON string of the JSON object
            args = json.loads(args)
        operator = get_operator(name)(**(args or {}))
        mutated = mutate_code(sources[module], operator, occurrence)
        lines = ["(no mutation at this occurrence)"] if mutated is None else \
            changed_lines(sources[module], mutated)
        yield job, module, name, occurrence, lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("session")
    parser.add_argument("--surviving", action="store_true",
                        help="the survivors instead of the pending mutants")
    parser.add_argument("--root", default=".", help="the copy the module paths are relative to")
    args = parser.parse_args(argv)
    count = 0
    for job, module, name, occurrence, lines in mutant_blocks(args.session, args.surviving,
                                                              args.root):
        print(f"[{job}] {module} {name} {occurrence}")
        print("\n".join(lines))
        count += 1
    print(f"{count} {'surviving' if args.surviving else 'pending'} mutants", file=sys.stderr)


if __name__ == "__main__":
    main()
