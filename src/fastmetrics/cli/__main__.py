"""``python -m fastmetrics.cli``: the command line (see :mod:`fastmetrics.cli`)."""

import sys

from . import main

if __name__ == "__main__":  # not when imported (e.g. by doctest collection)
    sys.exit(main())
