"""``python -m fastelm.experiments.fos_elm``: the reproduction's command line."""
import sys

from .reproduce import main

sys.exit(main())
