"""The deep comparators' command line, ``python -m fastelm.experiments.deep``: the BLS-fMRI
reproduction's (``fastelm reproduce bls-fmri``, one parser builder for both) with ``--deep
only`` as its default, so that it runs the connectome CNN, the population GCN and BLS-CV on
that reproduction's subjects and folds."""


def main(argv=None):
    """``python -m fastelm.experiments.deep [--fmri-data DIR] [--quick] [--out DIR] ...``: the
    options of ``fastelm reproduce bls-fmri`` (``--deep`` defaults to ``only`` here)."""
    from ..._cli import run_command
    from ..bls_fmri.reproduce import build_parser, run_from_args

    return run_command("deep", build_parser(deep="only"), run_from_args, argv)
