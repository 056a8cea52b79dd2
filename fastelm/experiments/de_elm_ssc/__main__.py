"""``python -m fastelm.experiments.de_elm_ssc``: the reproduction's command line."""
import sys

from .reproduce import main

sys.exit(main())
