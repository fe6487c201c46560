"""``python -m cuecard.dsh_adapter``: what the DSH plugins spawn."""

from __future__ import annotations

import sys

from cuecard.dsh_adapter._fast import fast

code = fast(sys.argv[1:])
if code is None:
    from cuecard.dsh_adapter.cli import main

    code = main()
sys.exit(code)
