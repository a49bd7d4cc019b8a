"""``python -m zilch_cli`` is the ``zilch`` command."""

import sys

from zilch_cli import main

sys.exit(main())
