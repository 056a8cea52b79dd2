"""Mark as skipped the pending mutants of a cosmic-ray session that lie inside type annotations.

    python mutation/annotation_filter.py session.sqlite

Under ``from __future__ import annotations`` an annotation is never evaluated at run time, so a
mutant of one (``int | None`` → ``int & None``, ``2 ** -30`` in a default is *not* one) cannot
change any result: the type checker (tests/test_typing.py runs mypy) is its test, not the unit
tests. A mutant is skipped only if its whole span lies within the span of a parameter or return
annotation, or of the annotation of an annotated assignment, as Python's own parser gives them;
modules without the ``__future__`` import are left alone. Prints how many it skipped.
"""
import ast
import sys
from functools import lru_cache
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkerOutcome, WorkResult


def _annotations(tree):
    """Every annotation node of a module."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    yield arg.annotation
            if node.returns is not None:
                yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


@lru_cache
def annotation_spans(path):
    """[((line, col), (end line, end col))] of the annotations of the module at ``path``, columns
    in characters (cosmic-ray's positions; ast's are UTF-8 bytes), or [] if the module evaluates
    its annotations (no ``from __future__ import annotations``)."""
    source = Path(path).read_text(encoding="utf-8")
    tree = ast.parse(source)
    lazy = any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
               and any(a.name == "annotations" for a in n.names) for n in tree.body)
    if not lazy:
        return []
    lines = source.splitlines()

    def chars(line, byte_col):
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8"))

    return [((n.lineno, chars(n.lineno, n.col_offset)),
             (n.end_lineno, chars(n.end_lineno, n.end_col_offset))) for n in _annotations(tree)]


def in_annotation(mutation):
    """Whether the mutation's span lies within one annotation."""
    start, end = tuple(mutation.start_pos), tuple(mutation.end_pos)
    return any(a <= start and end <= b for a, b in annotation_spans(mutation.module_path))


def main(argv=None):
    session, = sys.argv[1:] if argv is None else argv
    skipped = 0
    with use_db(session, WorkDB.Mode.open) as db:
        for item in db.pending_work_items:
            if all(in_annotation(m) for m in item.mutations):
                db.set_result(item.job_id, WorkResult(output="Filtered annotation",
                                                      worker_outcome=WorkerOutcome.SKIPPED))
                skipped += 1
    print(f"{skipped} pending mutants in annotations skipped")


if __name__ == "__main__":
    main()
