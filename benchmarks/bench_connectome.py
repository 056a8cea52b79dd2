"""Tangent-space connectomes: fastelm.connectome against nilearn's ConnectivityMeasure.

    python benchmarks/bench_connectome.py --subjects 126              # synthetic, 200 ROIs
    python benchmarks/bench_connectome.py --data ABIDE_DIR --atlas cc200 --subjects 764
    python benchmarks/bench_connectome.py --data ABIDE_DIR --bls 800   # BLS fit on connectomes

Fits ``kind='tangent'`` on the first N subjects and transforms 40 more, with both libraries,
one BLAS thread each (``--threads`` for fastelm's eigendecomposition threads), and prints the
wall and CPU seconds and the largest difference of the features (they agree to ~1e-13).
Measured on the shared 2-core development machine (heavily loaded, so CPU seconds are the
figure to compare), ABIDE CC200, 60 training subjects: nilearn 10.2 s, fastelm 5.6 s (1
thread); 764 training subjects: fastelm 350-430 s wall at a load of 10-17 processes.

``--bls N`` instead times a BLS fit at the paper's settings (10 windows × 10 nodes, 2000
enhancement nodes, reference preprocessing) on N subjects' Fisher-z connectomes (19900
features for CC200), one thread: 0.71 s CPU for 800 ABIDE subjects, of which the ten sparse
autoencoders' ADMM 0.18 s (0.73 s alone before its kernel was vectorised over columns).
"""
import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from fastelm.connectome import ConnectomeTransformer, sym_matrix_to_vec


def _synthetic(n, M, seed=0):
    rng = np.random.default_rng(seed)
    mixing = rng.standard_normal((M, M)) * 0.3 + np.eye(M)
    return [rng.standard_normal((int(rng.integers(120, 240)), M)) @ mixing for _ in range(n)]


def _time(make):
    wall, cpu = time.perf_counter(), time.process_time()
    out = make()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subjects", type=int, default=126)
    parser.add_argument("--rois", type=int, default=200)
    parser.add_argument("--data", default=None)
    parser.add_argument("--atlas", default="cc200")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--no-nilearn", action="store_true")
    parser.add_argument("--bls", type=int, default=None, metavar="N")
    args = parser.parse_args(argv)
    if args.bls:
        return _bls(args)
    n = args.subjects + 40
    if args.data:
        from fastelm.fmri import load_roi_dataset
        series = load_roi_dataset(args.data, atlas=args.atlas, features="connectivity").series[:n]
    else:
        series = _synthetic(n, args.rois)
    train, test = series[:args.subjects], series[args.subjects:]
    rows = []
    with threadpool_limits(1):
        ours = ConnectomeTransformer("tangent", n_jobs=args.threads)
        (a, b), wall, cpu = _time(lambda: (ours.fit_transform(train), ours.transform(test)))
        rows.append(("fastelm", wall, cpu))
        if not args.no_nilearn:
            from nilearn.connectome import ConnectivityMeasure
            ref = ConnectivityMeasure(kind="tangent", vectorize=False)
            (c, d), wall, cpu = _time(lambda: (ref.fit_transform(train), ref.transform(test)))
            rows.append(("nilearn", wall, cpu))
            c, d = sym_matrix_to_vec(c), sym_matrix_to_vec(d)  # our triangle order
            diff = max(np.abs(a - c).max(), np.abs(b - d).max())
    print(f"{len(train)} training + {len(test)} test subjects, {train[0].shape[1]} ROIs")
    for name, wall, cpu in rows:
        print(f"{name:8s} wall {wall:8.2f} s   cpu {cpu:8.2f} s")
    if not args.no_nilearn:
        print(f"largest feature difference {diff:.2e}; nilearn/fastelm CPU "
              f"{rows[1][2] / rows[0][2]:.2f}")


def _bls(args):
    from fastelm.bls import BLSClassifier
    from fastelm.fmri import connectivity_features, load_roi_dataset

    if args.data:
        bunch = load_roi_dataset(args.data, atlas=args.atlas, features="connectivity")
        X, y = bunch.data[:args.bls], bunch.target[:args.bls]
    else:
        X = connectivity_features(_synthetic(args.bls, args.rois))
        y = np.arange(len(X)) % 2
    params = dict(n_windows=10, nodes_per_window=10, n_enhancement=2000, shrink=0.8,
                  reg=2.0 ** -30, preprocessing="reference", random_state=0)
    with threadpool_limits(1):
        import numba
        numba.set_num_threads(1)
        BLSClassifier(**params).fit(X[:50], y[:50])  # compile / load the kernels
        _, wall, cpu = _time(lambda: BLSClassifier(**params).fit(X, y))
    print(f"BLS fit on {X.shape[0]} × {X.shape[1]}: wall {wall:.2f} s, cpu {cpu:.2f} s")


if __name__ == "__main__":
    main()
