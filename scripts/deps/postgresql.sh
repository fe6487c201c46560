#!/usr/bin/env bash
# PostgreSQL for the PostgreSQL vault tests (tests/core/vault/test_postgres.py): Debian's
# postgresql package. The tests start their own throwaway cluster with initdb/pg_ctl from
# /usr/lib/postgresql/*/bin, as an unprivileged user; the package's own cluster is not used.
set -euo pipefail
LABEL=postgresql
# shellcheck source=scripts/deps/_apt.sh
source "$(dirname "$0")/_apt.sh"
apt_install postgresql postgresql-contrib
