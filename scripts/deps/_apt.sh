# Sourced by scripts/deps/*.sh: apt_install PKG... installs Debian packages that are missing,
# running `apt-get update` at most once per boot, retrying a failed download (and showing
# apt-get's own error), with one line saying what it installs and how long it took.
LABEL=${LABEL:-apt}
# shellcheck source=scripts/deps/_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/_lib.sh"

apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  phase "apt: ${missing[*]}" _apt_get "${missing[@]}"
}

_apt_get() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  local marker=/tmp/.cuecard-apt-updated
  if [ ! -e "$marker" ]; then
    $sudo apt-get update -qq && touch "$marker"
  fi
  local attempt
  for attempt in 1 2 3; do
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" \
      >/dev/null && return 0
    echo "${LABEL}: apt-get install $* failed (attempt $attempt of 3)" >&2
    [ "$attempt" -lt 3 ] || break
    sleep $((attempt * 5))
    $sudo apt-get update -qq || true
  done
  return 1
}
