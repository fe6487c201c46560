#!/usr/bin/env bash
# PHP for the WordPress bridge tests (tests/wp_projection): Debian's php-cli, and php-curl so the
# bridge's curl transport is tested too.
set -euo pipefail
LABEL=php
# shellcheck source=scripts/deps/_apt.sh
source "$(dirname "$0")/_apt.sh"
apt_install php-cli php-curl
