"""``python -m randomts.cli``: the ``randomts`` command."""

import sys

from randomts.cli import main

if __name__ == "__main__":
    sys.exit(main())
