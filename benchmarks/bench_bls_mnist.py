"""BLS on MNIST with the reference settings (Chen & Liu 2018 demo): fastelm against a plain numpy
transcription of the same algorithm and against the Gram product IᵀI alone (the floor).

    python benchmarks/bench_bls_mnist.py                      # fastelm + floor, then numpy
    python benchmarks/bench_bls_mnist.py --variants fastelm --dtype float32 --reg 0.1

Settings: k = 10 nodes per window, n = 10 windows, q = 11000 enhancement nodes (11100 readout
columns), C = 2⁻³⁰, s = 0.8, 60000 training / 10000 test images scaled to [0, 1] (as the demo's
``train_x/255``), fastelm with ``preprocessing='reference'``, both implementations drawing their
random weights from the same numpy Generator in the same order.

Each variant runs in its own subprocess, which reports its peak resident memory
(``ru_maxrss``) over the training (data loading included, the same for every variant). The
fastelm subprocess then also times IᵀI for a random 60000 × 11100 matrix with ``I.T @ I`` (one
syrk), so that the ratio fit / floor comes from one process; that step's memory is not counted.
MNIST is read with ``fastelm.datasets.load_mnist`` from ``$FASTELM_DATA`` (default
``../shared/data`` beside the repository), or with the tiny IDX reader below.
"""
import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy.linalg import orth

DATA = Path(os.environ.get("FASTELM_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
C_REF, S_REF, K_REF, N_REF, Q_REF = 2.0 ** -30, 0.8, 10, 10, 11000


# ----------------------------------------------------------------------------- data
def read_idx(path):
    """An IDX file (gzipped or not) as a uint8 array of its declared shape."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load(n_train):
    try:
        from fastelm.datasets import load_mnist
        X, y, Xt, yt = load_mnist(data_home=DATA, return_X_y=True)
    except ImportError:
        folder = DATA / "mnist" if (DATA / "mnist").is_dir() else DATA
        X, y, Xt, yt = (read_idx(folder / f"{stem}-ubyte.gz") for stem in (
            "train-images-idx3", "train-labels-idx1", "t10k-images-idx3", "t10k-labels-idx1"))
    X, Xt = X.reshape(len(X), -1)[:n_train] / 255.0, Xt.reshape(len(Xt), -1) / 255.0
    return X, np.asarray(y[:n_train], dtype=np.int64), Xt, np.asarray(yt, dtype=np.int64)


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kB


# ----------------------------------------------------------------------------- plain numpy
def zscore(x):
    sd = x.std(axis=1, ddof=1, keepdims=True)
    sd[sd == 0] = 1
    return (x - x.mean(axis=1, keepdims=True)) / sd


def mapminmax(x, lo, hi, ps=None):
    """MATLAB mapminmax on the rows of x; ps = (xmin, xmax) to apply stored settings."""
    xmin, xmax = ps if ps is not None else (x.min(axis=1, keepdims=True),
                                            x.max(axis=1, keepdims=True))
    return (x - xmin) * ((hi - lo) / (xmax - xmin)) + lo, (xmin, xmax)


def sparse_bls(A, b, lam, itrs):
    AA = A.T @ A
    m, n = A.shape[1], b.shape[1]
    wk = ok = uk = np.zeros((m, n))
    L1 = np.linalg.inv(AA + np.eye(m))
    L2 = L1 @ A.T @ b
    for _ in range(itrs):
        ck = L2 + L1 @ (ok - uk)
        ok = np.maximum(ck + uk - lam, 0) - np.maximum(-ck - uk - lam, 0)
        uk = uk + (ck - ok)
        wk = ok
    return wk


def numpy_bls_train(train_x, train_y, s, C, N1, N2, N3, rng):
    """The reference bls_train in numpy, with ``clear``-like deletes and in-place tansig."""
    train_x = zscore(train_x)
    H1 = np.hstack([train_x, 0.1 * np.ones((len(train_x), 1))])
    y = np.zeros((len(train_x), N2 * N1))
    beta11, ps = [], []
    for i in range(N2):
        we = rng.uniform(-1, 1, size=(train_x.shape[1] + 1, N1))
        A1, _ = mapminmax(H1 @ we, -1, 1)
        beta1 = sparse_bls(A1, H1, 1e-3, 50).T
        T1, ps1 = mapminmax((H1 @ beta1).T, 0, 1)
        beta11.append(beta1)
        ps.append(ps1)
        y[:, N1 * i:N1 * (i + 1)] = T1.T
    del H1
    H2 = np.hstack([y, 0.1 * np.ones((len(y), 1))])
    R = rng.uniform(-1, 1, size=(N2 * N1 + 1, N3))
    wh = orth(R) if N1 * N2 >= N3 else orth(R.T).T
    T2 = H2 @ wh
    l2 = s / T2.max()
    T2 *= l2
    np.tanh(T2, out=T2)  # tansig
    T3 = np.hstack([y, T2])
    del T2, H2
    beta = np.linalg.solve(T3.T @ T3 + np.eye(T3.shape[1]) * C, T3.T @ train_y)
    return beta11, ps, wh, l2, beta


def numpy_bls_predict(model, test_x, N1, N2):
    beta11, ps, wh, l2, beta = model
    HH1 = np.hstack([zscore(test_x), 0.1 * np.ones((len(test_x), 1))])
    yy1 = np.hstack([mapminmax((HH1 @ beta11[i]).T, 0, 1, ps[i])[0].T for i in range(N2)])
    HH2 = np.hstack([yy1, 0.1 * np.ones((len(yy1), 1))])
    return np.hstack([yy1, np.tanh(HH2 @ wh * l2)]) @ beta


# ----------------------------------------------------------------------------- variants
def gram_floor(n_rows, n_cols, dtype):
    """Seconds of I.T @ I for a random n_rows × n_cols matrix (the product only)."""
    I_ = np.empty((n_rows, n_cols), dtype=dtype)
    rng = np.random.default_rng(0)
    for r0 in range(0, n_rows, 4096):
        I_[r0:r0 + 4096] = rng.uniform(-1, 1, size=I_[r0:r0 + 4096].shape)
    t0 = time.perf_counter()
    K = I_.T @ I_
    seconds = time.perf_counter() - t0
    del K, I_
    return seconds


def run_variant(args):
    X, y, Xt, yt = load(args.n_train)
    out = dict(variant=args.run, dtype=args.dtype, reg=args.reg, q=args.q, n_train=len(X),
               rss_after_load_mb=round(peak_rss_mb()))
    if args.run == "fastelm":
        from fastelm.bls import BLSClassifier
        model = BLSClassifier(n_windows=N_REF, nodes_per_window=K_REF, n_enhancement=args.q,
                              shrink=S_REF, reg=args.reg, preprocessing=args.preprocessing,
                              random_state=args.seed, dtype=args.dtype)
        model.fit(X[:200], y[:200])  # compile the kernels (cached on disk) outside the timing
        t0 = time.perf_counter()
        model.fit(X, y)
        out["train_s"] = time.perf_counter() - t0
        out["peak_rss_mb"] = round(peak_rss_mb())
        out["test_acc"] = float(model.score(Xt, yt))
        out["preprocessing"] = args.preprocessing
        del model
        if not args.no_floor:
            out["floor_s"] = gram_floor(len(X), N_REF * K_REF + args.q, args.dtype)
            out["fit_over_floor"] = out["train_s"] / out["floor_s"]
    else:
        Y = np.where(np.arange(10) == y[:, None], 1.0, -1.0)  # the demo's (y-1)*2+1 coding
        rng = np.random.default_rng(args.seed)
        t0 = time.perf_counter()
        model = numpy_bls_train(X, Y, S_REF, args.reg, K_REF, N_REF, args.q, rng)
        out["train_s"] = time.perf_counter() - t0
        out["peak_rss_mb"] = round(peak_rss_mb())
        scores = numpy_bls_predict(model, Xt, K_REF, N_REF)
        out["test_acc"] = float((np.argmax(scores, axis=1) == yt).mean())
    print(json.dumps(out), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", default="fastelm,numpy")
    p.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    p.add_argument("--reg", type=float, default=C_REF)
    p.add_argument("--q", type=int, default=Q_REF)
    p.add_argument("--n-train", type=int, default=60000)
    p.add_argument("--preprocessing", default="reference", choices=["reference", "minmax"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-floor", action="store_true")
    p.add_argument("--run", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.run:
        return run_variant(args)
    results = []
    for variant in args.variants.split(","):
        cmd = [sys.executable, __file__, "--run", variant, "--dtype", args.dtype,
               "--reg", repr(args.reg), "--q", str(args.q), "--n-train", str(args.n_train),
               "--preprocessing", args.preprocessing, "--seed", str(args.seed)]
        cmd += ["--no-floor"] if args.no_floor else []
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            sys.exit(f"{variant} failed:\n{proc.stderr}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), flush=True)
    print(f"\n{'variant':10} {'dtype':8} {'test acc':>9} {'train s':>8} {'floor s':>8} "
          f"{'fit/floor':>9} {'peak RSS MB':>12}")
    for r in results:
        floor = f"{r['floor_s']:8.1f} {r['fit_over_floor']:9.2f}" if "floor_s" in r else \
            f"{'':8} {'':9}"
        print(f"{r['variant']:10} {r['dtype']:8} {r['test_acc']:9.4f} {r['train_s']:8.1f} "
              f"{floor} {r['peak_rss_mb']:12d}")


if __name__ == "__main__":
    main()
