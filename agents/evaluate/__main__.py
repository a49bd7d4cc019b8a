"""``python -m agents.evaluate``: the command line (:mod:`agents.evaluate.cli`)."""

import sys

from agents.evaluate.cli import main

sys.exit(main())
