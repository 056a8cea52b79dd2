"""Keep a cosmic-ray session's results in the repository, and carry them into a new session.

    python mutation/session_record.py pin SESSION.sqlite [--root DIR]
    python mutation/session_record.py export SESSION.sqlite RECORD.jsonl [--root DIR]
    python mutation/session_record.py import RECORD.jsonl SESSION.sqlite [--root DIR]
    python mutation/session_record.py verify SESSION.sqlite --root DIR

A session lives in a scratch copy (/tmp/fastelm-mutation-NAME/session.sqlite) that does not
outlive the machine; its *record* (mutation/sessions/NAME.jsonl) is text committed to the
repository, one JSON line per completed mutant, sorted: the module (path relative to the copy)
and the git blob hash of its unmutated source, the operator, its arguments (when it has any),
the occurrence, the start and end positions, the worker and test outcomes, the tail of the
test output (2000 characters, 500 for a killed mutant) and the diff. Mutants the filters
skipped are not recorded: a new session's filters decide them again.

``pin`` writes the hashes of the session's modules, as they are before any mutant is planted,
to SESSION's sidecar (session.modules.json beside session.sqlite): run it right after
``cosmic-ray init``. ``export`` takes a module's hash from the sidecar, or, for a session
without one, from the file under ``--root`` (the repository: the copy's file may hold a mutant
while a run goes on). It reads a snapshot of the session (sqlite's backup, read-only), so it
can export a running session. The same session exports the same bytes.

``import`` fills a freshly initialised and filtered session (``cosmic-ray init``,
``cr-filter-operators``, ``annotation_filter.py``): each pending mutant whose (module,
operator, arguments, occurrence, start, end) has a record *and* whose module's current source
(under ``--root``, by default the working directory, as cosmic-ray resolves the paths) has the
recorded hash gets the recorded result, so ``cosmic-ray exec`` skips it and ``cr-report``
counts it. The records of a module that changed are dropped (and counted): their mutants run
again. ``verify`` exits 1 (naming them) if the modules under ``--root`` are not those pinned.
"""
import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

OUTPUT_TAIL = 2000  # characters of a mutant's test output kept
KILLED_TAIL = 500  # ... of a killed mutant's (the failing test and the summary)
TRIMMED = "[...]\n"


def blob_hash(data: bytes) -> str:
    """The git blob hash of a file's bytes (what ``git hash-object`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def sidecar(session) -> Path:
    """The file beside the session that holds its modules' hashes."""
    session = Path(session)
    return session.with_name(session.stem + ".modules.json")


def tail(text, limit):
    """The last lines of ``text`` within ``limit`` characters, "[...]" first if any were cut.
    Idempotent: a tail is its own tail, so a record exported again does not change."""
    if text is None or len(text) <= limit:
        return text
    kept = text[len(text) - (limit - len(TRIMMED)):]
    newline = kept.find("\n")
    if 0 <= newline < len(kept) - 1:
        kept = kept[newline + 1:]
    return TRIMMED + kept


def _mutation(item):
    if len(item.mutations) != 1:
        sys.exit(f"job {item.job_id}: {len(item.mutations)} mutations (only first-order "
                 f"sessions, as cosmic-ray init makes them, can be recorded)")
    return item.mutations[0]


def _key(module, operator, args, occurrence, start, end):
    return (str(module), operator, json.dumps(args or {}, sort_keys=True), int(occurrence),
            tuple(start), tuple(end))


def _mutation_key(mutation):
    return _key(mutation.module_path.as_posix(), mutation.operator_name, mutation.operator_args,
                mutation.occurrence, mutation.start_pos, mutation.end_pos)


def _record_key(record):
    return _key(record["module"], record["operator"], record.get("args"), record["occurrence"],
                record["start"], record["end"])


def _hashes(modules, root):
    return {m: blob_hash((Path(root) / m).read_bytes()) for m in sorted(modules)}


def pin(session, root="."):
    """Write the current hashes of the session's modules to its sidecar."""
    with use_db(session, WorkDB.Mode.open) as db:
        modules = {_mutation(item).module_path.as_posix() for item in db.work_items}
    hashes = _hashes(modules, root)
    sidecar(session).write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    return hashes


def verify(session, root):
    """The modules whose source under ``root`` is not the one pinned for the session."""
    if not sidecar(session).exists():
        return []
    pinned = json.loads(sidecar(session).read_text())
    return [m for m, digest in sorted(pinned.items())
            if not (Path(root) / m).exists() or blob_hash((Path(root) / m).read_bytes()) != digest]


def _snapshot(session, target):
    """Copy a (maybe running) session with sqlite's backup, opening it read-only. A session
    whose cosmic-ray was killed in a write keeps a hot journal, which only a writer may roll
    back: then the files are copied and the copy is rolled back (nobody writes the session)."""
    session = Path(session).resolve()
    if not session.exists():
        sys.exit(f"no session {session}")
    try:
        source = sqlite3.connect(f"file:{session}?mode=ro", uri=True, timeout=60)
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
            source.close()
    except sqlite3.OperationalError:
        journal = session.with_name(session.name + "-journal")
        if not journal.exists():
            raise
        Path(target).unlink(missing_ok=True)
        shutil.copyfile(session, target)
        shutil.copyfile(journal, target + "-journal")


def records(session, root=None):
    """The record lines (text, sorted) of a session's completed, not skipped, mutants."""
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = os.path.join(tmp, "session.sqlite")
        _snapshot(session, snapshot)
        with use_db(snapshot, WorkDB.Mode.open) as db:
            completed = [(_mutation(item), result) for item, result in db.completed_work_items
                         if result.worker_outcome != WorkerOutcome.SKIPPED]
    pinned = json.loads(sidecar(session).read_text()) if sidecar(session).exists() else {}
    modules = {m.module_path.as_posix() for m, _ in completed} - set(pinned)
    if modules and root is None:
        sys.exit(f"{session}: no {sidecar(session).name} (pin) for {', '.join(sorted(modules))}: "
                 f"give --root, the repository the copy was made from")
    hashes = {**(_hashes(modules, root) if modules else {}), **pinned}
    lines = []
    for mutation, result in completed:
        module = mutation.module_path.as_posix()
        record = {"module": module, "blob": hashes[module], "operator": mutation.operator_name}
        if mutation.operator_args:
            record["args"] = mutation.operator_args
        killed = result.test_outcome == TestOutcome.KILLED
        record.update(
            occurrence=mutation.occurrence, start=list(mutation.start_pos),
            end=list(mutation.end_pos), worker=result.worker_outcome.value,
            test=result.test_outcome.value if result.test_outcome is not None else None,
            output=tail(result.output, KILLED_TAIL if killed else OUTPUT_TAIL),
            diff=result.diff)
        lines.append((_mutation_key(mutation),
                      json.dumps(record, ensure_ascii=False, separators=(",", ":"))))
    return [line for _, line in sorted(lines)]


def export(session, record, root=None):
    """Write the session's record (atomically: a reader never sees half a file)."""
    lines = records(session, root)
    record = Path(record)
    record.parent.mkdir(parents=True, exist_ok=True)
    partial = record.with_name(record.name + ".partial")
    partial.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(partial, record)
    return len(lines)


def import_(record, session, root=".", rerun_survivors=False):
    """Give the session's pending mutants their recorded results; returns the counts.
    ``rerun_survivors``: leave the recorded survivors pending, so that they run again against
    the tests as they are now (tests written after the run may kill them)."""
    recorded = {}
    for line in Path(record).read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            recorded[_record_key(entry)] = entry
    counts = Counter()
    changed = Counter()
    with use_db(session, WorkDB.Mode.open) as db:
        items = {_mutation_key(_mutation(item)): item.job_id for item in db.work_items}
        pending = {item.job_id for item in db.pending_work_items}
        modules = {key[0] for key in items} | {key[0] for key in recorded}
        hashes = {m: blob_hash((Path(root) / m).read_bytes()) for m in sorted(modules)
                  if (Path(root) / m).exists()}
        for key, entry in sorted(recorded.items()):
            job = items.get(key)
            if hashes.get(entry["module"]) != entry["blob"]:
                changed[entry["module"]] += 1
            elif job is None:
                counts["unknown"] += 1  # no such mutant now: an operator no longer configured
            elif job not in pending:
                counts["done"] += 1  # a filter skipped it in this session
            elif rerun_survivors and entry["test"] == TestOutcome.SURVIVED.value:
                counts["rerun"] += 1
            else:
                db.set_result(job, WorkResult(
                    worker_outcome=WorkerOutcome(entry["worker"]), output=entry["output"],
                    test_outcome=TestOutcome(entry["test"]) if entry["test"] else None,
                    diff=entry["diff"]))
                counts["imported"] += 1
                pending.discard(job)
    for module, count in sorted(changed.items()):
        why = "changed since the run" if module in hashes else "no longer there"
        print(f"{record}: {count} records of {module} dropped: the module {why} "
              f"(its mutants run again)")
    if counts["unknown"] or counts["done"]:
        print(f"{record}: {counts['unknown']} records match no mutant of this session "
              f"(operators configured otherwise), {counts['done']} mutants the filters skip")
    counts["dropped"] = sum(changed.values())
    counts["pending"] = len(pending)
    print(f"{record}: {counts['imported']} imported, {counts['dropped']} dropped "
          f"(module changed), {counts['unknown'] + counts['done']} unmatched, "
          f"{counts['pending']} pending" + (f" ({counts['rerun']} survivors to run again)"
                                             if rerun_survivors else ""))
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("pin", help="record the session's modules' hashes (after init)")
    p.add_argument("session")
    p.add_argument("--root", default=".", help="where the module paths lead (default: .)")
    e = commands.add_parser("export", help="write a session's record")
    e.add_argument("session")
    e.add_argument("record")
    e.add_argument("--root", help="the repository, for a session without a pin")
    i = commands.add_parser("import", help="mark the recorded mutants of a new session done")
    i.add_argument("record")
    i.add_argument("session")
    i.add_argument("--root", default=".", help="where the module paths lead (default: .)")
    i.add_argument("--rerun-survivors", action="store_true",
                   help="leave the recorded survivors pending: they run against today's tests")
    v = commands.add_parser("verify", help="exit 1 if a module changed since the pin")
    v.add_argument("session")
    v.add_argument("--root", default=".", help="where the module paths lead (default: .)")
    args = parser.parse_args(argv)
    if args.command == "verify":
        changed = verify(args.session, args.root)
        for module in changed:
            print(f"{module} changed since {args.session} was initialised")
        sys.exit(1 if changed else 0)
    elif args.command == "pin":
        for module, digest in pin(args.session, args.root).items():
            print(f"{module} {digest}")
    elif args.command == "export":
        count = export(args.session, args.record, args.root)
        print(f"{args.record}: {count} mutants recorded")
    else:
        import_(args.record, args.session, args.root, args.rerun_survivors)


if __name__ == "__main__":
    main()
