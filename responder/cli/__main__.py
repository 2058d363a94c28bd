"""``python -m responder.cli``: the same as the ``responder`` command."""

import sys

from responder.cli import main

sys.exit(main())
