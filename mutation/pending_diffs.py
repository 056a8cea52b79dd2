"""Print the mutants of a cosmic-ray session that have not run yet, each as the lines it changes,
so that a module can be read against its tests before (or while) the run is made:

    python mutation/pending_diffs.py session.sqlite              # the pending mutants
    python mutation/pending_diffs.py session.sqlite --surviving  # the survivors, same form

The mutant is planted in memory, never on disk, in the module as it is in the repository
(``--root``, by default the one this file is in: a running copy's module may hold a mutant).
`cr-report --show-pending` gives no diff for a mutant that has not run; this does, one block per
mutant: its job id, module, operator and occurrence, then the old and new lines with their
numbers. A running session is read from a snapshot (``session_record``).
"""
import argparse
import difflib
import os
import sys
import tempfile
from pathlib import Path

from cosmic_ray.mutating import mutate_code
from cosmic_ray.plugins import get_operator
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome

sys.path.insert(0, str(Path(__file__).resolve().parent))
from session_record import _mutation, _mutation_key, _snapshot  # noqa: E402

REPOSITORY = Path(__file__).resolve().parents[1]


def changed_lines(source, mutated):
    """The unified diff of one mutant without context: ``-N old`` and ``+N new`` lines."""
    old, new = source.splitlines(), mutated.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new,
                                                       autojunk=False).get_opcodes():
        if tag != "equal":
            out += [f"-{i + 1} {old[i]}" for i in range(i1, i2)]
            out += [f"+{j + 1} {new[j]}" for j in range(j1, j2)]
    return out


def _selected(session, surviving):
    """(job id, mutation) of the session's pending mutants, or of its survivors, in source
    order."""
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = os.path.join(tmp, "session.sqlite")
        _snapshot(session, snapshot)
        with use_db(snapshot, WorkDB.Mode.open) as db:
            items = ([item for item, result in db.completed_work_items
                      if result.test_outcome == TestOutcome.SURVIVED] if surviving
                     else list(db.pending_work_items))
            chosen = [(item.job_id, _mutation(item)) for item in items]
    return sorted(chosen, key=lambda c: _mutation_key(c[1]))


def mutant_blocks(session, surviving=False, root=REPOSITORY):
    """(job id, module, operator, occurrence, changed lines) of each selected mutant."""
    sources = {}
    for job, mutation in _selected(session, surviving):
        module = mutation.module_path.as_posix()
        if module not in sources:
            sources[module] = (Path(root) / module).read_text(encoding="utf-8")
        operator = get_operator(mutation.operator_name)(**(mutation.operator_args or {}))
        mutated = mutate_code(sources[module], operator, mutation.occurrence)
        lines = ["(no mutation at this occurrence)"] if mutated is None else \
            changed_lines(sources[module], mutated)
        yield job, module, mutation.operator_name, mutation.occurrence, lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("session")
    parser.add_argument("--surviving", action="store_true",
                        help="the survivors instead of the pending mutants")
    parser.add_argument("--root", default=REPOSITORY,
                        help="where the module paths lead (default: this repository)")
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
