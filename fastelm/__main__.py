"""``python -m fastelm``: the command line of :mod:`fastelm.cli` (``python -m fastelm demo`` runs
the demo)."""
import sys

from .cli import main

sys.exit(main())
