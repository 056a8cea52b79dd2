"""``python -m fastelm.experiments.deep``: the deep comparators' command line."""
import sys

from .reproduce import main

sys.exit(main())
