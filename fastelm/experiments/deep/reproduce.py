"""The deep comparators' command line, ``python -m fastelm.experiments.deep``."""
from .brainnetcnn import CONNECTOME_KINDS
from .protocol import run_abide


def main(argv=None):
    """``python -m fastelm.experiments.deep --data DIR [--out DIR] [--features KIND ...]``."""
    import argparse

    from ..bls_fmri import SEED_OPTION

    parser = argparse.ArgumentParser(
        prog="python -m fastelm.experiments.deep",
        description="BrainNetCNN and the population GCN (and BLS-CV for the time ratio) on the "
                    "BLS-fMRI reproduction's 10 folds of an ABIDE-layout folder.")
    parser.add_argument("--data", required=True, help="an ABIDE-layout directory")
    parser.add_argument("--out", default="results/bls-fmri-abide/deep", help="output folder")
    parser.add_argument("--atlas", default="cc200")
    parser.add_argument("--features", nargs="+", default=["connectivity"],
                        choices=sorted(CONNECTOME_KINDS))
    parser.add_argument("--seed", type=SEED_OPTION, default=0,
                        help="seeds the folds (the BLS-fMRI reproduction's) and the networks")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    records = run_abide(args.data, args.out, tuple(args.features), atlas=args.atlas,
                        seed=args.seed, progress=not args.no_progress)
    print(f"{len(records)} fits; wrote {args.out}")
    return 0
