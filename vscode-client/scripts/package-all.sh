#!/usr/bin/env bash
# Builds the .vsix of every platform VS Code publishes extensions for (or those in TARGETS) into dist/:
# dist/codex-rollout-lsp-<target>.vsix, each with the server and its compiled dependencies for CPython 3.10-3.13.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS=${TARGETS:-"linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64"}
npm run --silent typecheck
npm run --silent bundle
mkdir -p dist
bash scripts/bundle-python.sh wheels
for target in $TARGETS; do
  started=$SECONDS
  rm -f "dist/codex-rollout-lsp-$target.vsix"
  NO_WHEEL_BUILD=1 bash scripts/bundle-python.sh "$target"
  npx vsce package --no-dependencies --target "$target" --out "dist/codex-rollout-lsp-$target.vsix" >/dev/null
  echo "dist/codex-rollout-lsp-$target.vsix: $(du -h "dist/codex-rollout-lsp-$target.vsix" | cut -f1), $((SECONDS - started)) s"
done
