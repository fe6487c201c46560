# Sourced by scripts/setup and scripts/deps/*.sh (scripts/test runs only the files without a
# leading underscore). Set LABEL (the script's name in messages) before sourcing.
#
#   phase TEXT CMD...   prints "LABEL: TEXT…", runs CMD, then "LABEL: TEXT: done in N s" (or
#                       "failed after N s"): one line per phase, with how long it took.
#   retry CMD...        runs CMD up to three times, its output kept in a log; after a failed
#                       attempt, prints the command's own last 40 lines of output (the pause
#                       between attempts is RETRY_PAUSE times the attempt, 5 s by default).
#   need_node           fails unless node and npm are on the PATH and node is NODE_MIN or newer
#                       (the version the README's set-up section names).
#   npm_settings        prints the user's npm network settings (registry, cafile, proxies,
#                       strict-ssl) as .npmrc lines, as `npm config get` reads them from the
#                       user's own configuration (environment, ~/.npmrc, the global npmrc): for a
#                       tool that reads another configuration (pnpm reads neither npm's global
#                       npmrc nor its npm_config_* variables, only a project's .npmrc).

NODE_MIN=20

phase() {
  local text=$1 start status=0
  shift
  start=$SECONDS
  echo "${LABEL}: ${text}…" >&2
  "$@" || status=$?
  if [ "$status" -eq 0 ]; then
    echo "${LABEL}: ${text}: done in $((SECONDS - start)) s" >&2
  else
    echo "${LABEL}: ${text}: failed after $((SECONDS - start)) s" >&2
  fi
  return "$status"
}

retry() {
  local attempt log
  log=$(mktemp)
  for attempt in 1 2 3; do
    if "$@" >"$log" 2>&1; then
      rm -f "$log"
      return 0
    fi
    echo "${LABEL}: '$*' failed (attempt $attempt of 3):" >&2
    tail -n 40 "$log" | sed 's/^/    /' >&2
    [ "$attempt" -lt 3 ] && sleep $((attempt * ${RETRY_PAUSE:-5}))
  done
  rm -f "$log"
  return 1
}

need_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "${LABEL}: Node.js ${NODE_MIN} or newer with npm is required (none on the PATH)" >&2
    return 1
  fi
  local version
  version=$(node --version)
  version=${version#v}
  if [ "${version%%.*}" -lt "$NODE_MIN" ] 2>/dev/null; then
    echo "${LABEL}: Node.js ${NODE_MIN} or newer is required; $(command -v node) is ${version}" >&2
    return 1
  fi
}

npm_settings() {
  local key value
  for key in registry cafile proxy https-proxy noproxy strict-ssl; do
    value=$(npm config get "$key" 2>/dev/null) || continue
    case "$value" in "" | null | undefined) continue ;; esac
    printf '%s=%s\n' "$key" "$value"
  done
}
