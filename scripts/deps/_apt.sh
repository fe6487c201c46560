# Sourced by scripts/deps/*.sh: apt_install PKG... installs Debian packages that are missing,
# running `apt-get update` at most once per boot, retrying a failed download.
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  local marker=/tmp/.cuecard-apt-updated
  if [ ! -e "$marker" ]; then
    $sudo apt-get update -qq && touch "$marker"
  fi
  local attempt
  for attempt in 1 2 3; do
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
      >/dev/null && return 0
    echo "apt-get install ${missing[*]} failed (attempt $attempt); retrying" >&2
    sleep $((attempt * 5))
    $sudo apt-get update -qq || true
  done
  return 1
}
