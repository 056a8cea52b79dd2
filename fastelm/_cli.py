"""What every command line of fastelm shares (``fastelm``, ``python -m fastelm.demo`` and
``python -m fastelm.experiments.*``): a user's mistake is one line ``prog: error: ...`` on stderr,
naming the option or path, with exit status 2 (``run_command``); option types that check a
value when it is parsed (``seed_option``, ``sklearn_seed_option``, ``positive_int_option``,
``directory_option``); and checks made before any work starts (``check_option``,
``check_output_dir``, ``check_output_file``).
"""
import argparse
import csv
import os
import sys
from collections.abc import Callable, Sequence


class CommandError(ValueError):
    """A failure to report to the user as one line (a ValueError for callers of the API)."""


# what a user's mistake raises: bad values (ValueError, including the data readers' format
# errors and UnicodeDecodeError), files (OSError, including DataNotFoundError), csv.Error,
# a missing optional package (ImportError)
USER_ERRORS = (CommandError, OSError, ValueError, ImportError, csv.Error)
EXIT_USAGE = 2  # as argparse exits on a bad command line
# the largest seed scikit-learn's random_state takes (numpy's legacy RandomState: 32 bits)
SKLEARN_SEED_MAX = 2**32 - 1


def run_command(prog: str, parser: argparse.ArgumentParser,
                body: Callable[[argparse.Namespace], int],
                argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` with ``parser`` and return ``body(args)``'s exit status.

    A user error is one line ``prog: error: ...`` on stderr and exit status 2: a bad option
    (argparse's message, which names it, after the usage line) or any of USER_ERRORS raised by
    ``body`` (a traceback only with ``$FASTELM_TRACEBACK`` set). ``--help`` and ``--version``
    return 0.
    """
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version, or argparse's error (status 2)
        return int(exit_.code or 0)  # argparse exits with an int status
    try:
        return body(args)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except USER_ERRORS as error:
        if os.environ.get("FASTELM_TRACEBACK"):
            raise
        text = " ".join(str(error).split()) or type(error).__name__
        print(f"{prog}: error: {text}", file=sys.stderr)
        return EXIT_USAGE


def _integer_option(text: str, minimum: int, rule: str, maximum: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < minimum or maximum is not None and value > maximum:
        raise argparse.ArgumentTypeError(f"{text}: {rule}")
    return value


def seed_option(text: str) -> int:
    """argparse type of ``--seed``: an integer ≥ 0 of any size (as the estimators'
    ``random_state``); argparse names the option in its message."""
    return _integer_option(text, 0, "a seed must be an integer >= 0")


def sklearn_seed_option(text: str) -> int:
    """argparse type of ``--seed`` in a run that also seeds scikit-learn (its splitters and
    comparators), whose ``random_state`` takes 32-bit seeds: an integer in [0, 2**32 - 1]."""
    return _integer_option(text, 0, f"a seed must be an integer in [0, {SKLEARN_SEED_MAX}] "
                           "(this run seeds scikit-learn, which takes 32-bit seeds)",
                           SKLEARN_SEED_MAX)


def check_option(value: object, option_type: Callable[[str], object], option: str) -> object:
    """``value``, already parsed, checked by ``option_type`` (the argparse type of ``option``
    in a command that ``value`` is passed on to: ``fastelm reproduce --seed`` and each
    experiment's ``SEED_OPTION``), before any work; a CommandError worded as argparse's
    message otherwise. Returns ``option_type(str(value))``."""
    try:
        return option_type(str(value))
    except argparse.ArgumentTypeError as error:
        raise CommandError(f"argument {option}: {error}") from None


def positive_int_option(text: str) -> int:
    """argparse type of a count: an integer ≥ 1 (a count of 0 would run nothing)."""
    return _integer_option(text, 1, "must be at least 1")


def directory_option(text: str) -> str:
    """argparse type of an input folder (``--data``): it must exist."""
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text}: no such directory")
    return text


def check_output_dir(path: str, option: str = "--out") -> str:
    """Create ``path`` and write a probe file in it, before any work (a typo must not cost a
    run); a CommandError naming ``option`` and the path if that fails. Returns ``path``."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CommandError(f"{option} {path}: exists and is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".fastelm-write-test")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as error:
        raise CommandError(f"{option} {path}: cannot write there ({error.strerror})") from None
    return path


def check_output_file(path: str, option: str = "--out") -> str:
    """Check that the file ``path`` can be written (its folder exists and is writable, it is
    not a folder) before any work; a CommandError naming ``option`` otherwise."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CommandError(f"{option} {path}: is a directory, not a file")
    if not os.path.isdir(folder):
        raise CommandError(f"{option} {path}: no such directory {folder}")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CommandError(f"{option} {path}: cannot write there")
    return path
