#!/usr/bin/env bash
# zsh for the shell completion tests (tests/core/cli/test_completion.py): `cuecard completion zsh`
# is sourced and run by a real zsh. Debian's zsh package.
set -euo pipefail
LABEL=zsh
# shellcheck source=scripts/deps/_apt.sh
source "$(dirname "$0")/_apt.sh"
apt_install zsh
