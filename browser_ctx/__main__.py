"""``python -m browser_ctx`` runs the ``browser-ctx`` command."""

import sys

from .cli import main

sys.exit(main())
