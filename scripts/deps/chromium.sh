#!/usr/bin/env bash
# Chromium for the review UI's browser tests (tests/ui): Debian's chromium, driven by Playwright
# for Python (tools/requirements-test.txt) with executable_path=/usr/bin/chromium. Playwright
# never downloads a browser of its own.
set -euo pipefail
LABEL=chromium
# shellcheck source=scripts/deps/_apt.sh
source "$(dirname "$0")/_apt.sh"
apt_install chromium
