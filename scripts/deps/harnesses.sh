#!/usr/bin/env bash
# The real harness CLIs that tests/e2e drives headless against a scripted model server, pinned,
# idempotent, into .cache/harnesses/ (git-ignored):
#   npm/      @anthropic-ai/claude-code, @openai/codex, opencode-ai (bins in npm/node_modules/.bin)
#   grok/     the PyPI wheel grok-cli-bin, unpacked with `pip install --target` (grok/bin/grok)
#   opencode-plugin/  @opencode-ai/plugin, what OpenCode installs into a project's .opencode/ at
#             start; the tests copy it there so that no test run reaches the registry.
# npm runs inside each target folder (never with --prefix, which would make it read another
# global npmrc) and pip with the user's pip configuration. Each part is skipped when its stamp
# matches its versions; a failed download is retried and its error shown.
# Skip everything with CUECARD_SKIP_HARNESSES=1 (tests/e2e then skips, or fails in CI).
set -euo pipefail
LABEL=harnesses
# shellcheck source=scripts/deps/_lib.sh
source "$(dirname "$0")/_lib.sh"
cd "$(dirname "$0")/../.."

CLAUDE=2.1.332 CODEX=0.171.0 OPENCODE=1.18.33 OPENCODE_PLUGIN=1.18.33 GROK=0.2.111

[ "${CUECARD_SKIP_HARNESSES:-}" = 1 ] && exit 0
case "$(uname -sm)" in
  "Linux x86_64") ;;
  *) echo "harnesses: the pinned harness binaries are for Linux x86_64; skipping" >&2; exit 0 ;;
esac
need_node

# npm_in DIR ARGS...: npm ARGS run inside DIR (which holds a package.json).
npm_in() { (cd "$1" && shift && npm "$@"); }

cache=.cache/harnesses
mkdir -p "$cache"

# part NAME WANT: true when the part must be (re)installed; the caller writes the stamp after.
stale() { [ "$(cat "$cache/$1/.stamp" 2>/dev/null)" != "$2" ]; }

want="claude-code $CLAUDE codex $CODEX opencode-ai $OPENCODE"
if stale npm "$want"; then
  rm -rf "$cache/npm" && mkdir -p "$cache/npm"
  echo '{"private": true}' > "$cache/npm/package.json"
  phase "Claude Code $CLAUDE, Codex $CODEX, OpenCode $OPENCODE (npm)" \
    retry npm_in "$cache/npm" install --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE" "@openai/codex@$CODEX" "opencode-ai@$OPENCODE"
  for bin in claude codex opencode; do
    "$cache/npm/node_modules/.bin/$bin" --version >/dev/null
  done
  echo "$want" > "$cache/npm/.stamp"
fi

want="@opencode-ai/plugin $OPENCODE_PLUGIN"
if stale opencode-plugin "$want"; then
  rm -rf "$cache/opencode-plugin" && mkdir -p "$cache/opencode-plugin"
  printf '{\n  "dependencies": {\n    "@opencode-ai/plugin": "%s"\n  }\n}\n' "$OPENCODE_PLUGIN" \
    > "$cache/opencode-plugin/package.json"
  phase "@opencode-ai/plugin $OPENCODE_PLUGIN (npm)" \
    retry npm_in "$cache/opencode-plugin" install --no-audit --no-fund --loglevel=error
  echo "$want" > "$cache/opencode-plugin/.stamp"
fi

want="grok-cli-bin $GROK"
if stale grok "$want"; then
  rm -rf "$cache/grok" && mkdir -p "$cache/grok"
  python=python3
  [ -x .venv/bin/python ] && python=.venv/bin/python
  phase "Grok Build $GROK (pip)" retry "$python" -m pip install --quiet --no-deps \
    --disable-pip-version-check --target "$cache/grok/site" "grok-cli-bin==$GROK"
  mkdir -p "$cache/grok/bin"
  ln -sf ../site/grok_cli_bin/bin/grok "$cache/grok/bin/grok"
  "$cache/grok/bin/grok" --version >/dev/null
  echo "$want" > "$cache/grok/.stamp"
fi
