"""Demo on offline data: ELM and OS-ELM against scikit-learn baselines, as a Markdown table.

    fastelm demo [--data DIR]                       (also ``python -m fastelm demo``)
    python -m fastelm.demo [--data DIR] [--hidden L] [--seed S] [--out FILE.md]

Uses every classification set that is available offline (see ``fastelm.datasets``): Wdbc always
(it ships with scikit-learn), the others when their files or clean package copies are present.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from . import datasets
from ._cli import (check_output_file, directory_option, positive_int_option, run_command,
                   sklearn_seed_option)
from .elm import ELMClassifier, OSELMClassifier

SETS = ["wdbc", "australian", "breast_cancer_wisconsin", "vote", "pima", "segment", "satimage",
        "mushroom"]


def _train_test(bunch, seed):
    if "data_test" in bunch:
        return bunch.data, bunch.data_test, bunch.target, bunch.target_test
    return train_test_split(bunch.data, bunch.target, test_size=0.25, stratify=bunch.target,
                            random_state=seed)


def _timed_score(model, fit, X_test, y_test):
    start = time.perf_counter()
    fit(model)
    return model.score(X_test, y_test), time.perf_counter() - start


def run(data_home: str | None = None, n_hidden: int = 200, seed: int = 0
        ) -> list[tuple[str, int, int, list[tuple[float, float]]]]:
    """Rows (dataset, n_train, n_test, [(accuracy, seconds)] per model) for the sets available."""
    datasets.get_data_home(data_home)  # a folder that does not exist is an error, not "no data"
    rows = []
    for name in SETS:
        try:
            bunch = datasets.load_dataset(name, data_home=data_home)
        except OSError as error:  # not on this machine: say so, run the others
            print(f"demo: skipping {name}: {str(error).splitlines()[0]}", file=sys.stderr)
            continue
        X_train, X_test, y_train, y_test = _train_test(bunch, seed)
        scaler = StandardScaler().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
        chunks = np.array_split(np.arange(len(X_train)), 10)

        def stream(model):
            for rows_ in chunks:
                model.partial_fit(X_train[rows_], y_train[rows_], classes=np.unique(y_train))

        results = [
            _timed_score(ELMClassifier(n_hidden=n_hidden, random_state=seed),
                         lambda m: m.fit(X_train, y_train), X_test, y_test),
            _timed_score(OSELMClassifier(n_hidden=n_hidden, random_state=seed), stream,
                         X_test, y_test),
            _timed_score(LogisticRegression(max_iter=2000),
                         lambda m: m.fit(X_train, y_train), X_test, y_test),
        ]
        rows.append((name, len(X_train), len(X_test), results))
    return rows


def table(rows: Sequence[tuple[str, int, int, Sequence[tuple[float, float]]]],
          n_hidden: int) -> str:
    head = (f"| data set | train | test | ELM ({n_hidden}) acc | s | OS-ELM, 10 chunks acc | s "
            "| logistic regression acc | s |")
    lines = [head, "|" + "---|" * 9]
    for name, n_train, n_test, results in rows:
        cells = " | ".join(f"{acc:.4f} | {sec:.3f}" for acc, sec in results)
        lines.append(f"| {name} | {n_train} | {n_test} | {cells} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fastelm.demo",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=directory_option,
                        help="directory with UCI/IDX files (else $FASTELM_DATA)")
    parser.add_argument("--hidden", type=positive_int_option, default=200,
                        help="hidden nodes (default 200)")
    # the seed goes to scikit-learn's train_test_split too: 32 bits
    parser.add_argument("--seed", type=sklearn_seed_option, default=0,
                        help="seeds splits and models (an integer in [0, 2**32 - 1])")
    parser.add_argument("--out", help="also write the table to this Markdown file")
    return run_command("fastelm demo", parser, _main, argv)


def _main(args):
    if args.out:
        check_output_file(args.out)
    rows = run(args.data, args.hidden, args.seed)
    text = table(rows, args.hidden)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
