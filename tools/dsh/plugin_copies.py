"""Refresh each DSH plugin's copy of the shared files from ``packages/dsh-adapter/js/shared/``.

    python tools/dsh/plugin_copies.py            # write every copy that is missing or differs
    python tools/dsh/plugin_copies.py --check    # exit 1, naming each copy that is not the source

Both plugins run the same ``runner.js`` and ``secrets.js``; each holds its own copy in ``lib/``
(a regular file, so that a plugin loads without the other and a Windows checkout holds the same
bytes). Edit ``js/shared/``, then run this. The check is the wheel build's own
(``packages/dsh-adapter/hatch_build.py``: ``copy_problems``), which a test runs too.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "packages" / "dsh-adapter"

__all__ = ["PACKAGE", "build_hook", "main"]


def build_hook() -> ModuleType:
    """``packages/dsh-adapter/hatch_build.py``, which holds the plugins' list and the check."""
    spec = importlib.util.spec_from_file_location("cuecard_dsh_build", PACKAGE / "hatch_build.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"{PACKAGE / 'hatch_build.py'} cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("names", nargs="*", help="only these shared files (default: all)")
    args = parser.parse_args(argv)
    hook = build_hook()
    if args.check:
        problems = hook.copy_problems(PACKAGE)
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    for copy in hook.write_copies(PACKAGE, tuple(args.names)):
        print(f"wrote {copy.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
