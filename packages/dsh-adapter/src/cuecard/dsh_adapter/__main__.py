"""``python -m cuecard.dsh_adapter``: what the DSH plugins spawn."""

from __future__ import annotations

import sys

from cuecard.dsh_adapter._commands import main

sys.exit(main())
