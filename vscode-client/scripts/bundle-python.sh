#!/usr/bin/env bash
# Fills vscode-client/bundled/ with the server for one VS Code target:
#   bundled/libs/          the project and its pure-Python dependencies (bundle-pure.txt)
#   bundled/native/cpXY/   its compiled dependencies (bundle-native.txt), wheels fetched for the target's
#                          platform, one folder per CPython in PYTHONS; the extension picks the one that fits
#   bundled/PLATFORM.json  the target and the Pythons, read by the extension (src/launch.ts)
# Everything is installed with --no-deps from the pinned lists, by a virtual environment of this script's own
# (build/python/env) that ignores the machine's pip configuration: the user's interpreter is never touched.
#   usage: bundle-python.sh TARGET   (linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64; default: this machine's)
#          bundle-python.sh wheels   (only build the pure wheels; then NO_WHEEL_BUILD=1 bundle-python.sh TARGET reuses them)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHONS=${PYTHONS:-"3.10 3.11 3.12 3.13"}
BUILD=build/python
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_NO_WARN_SCRIPT_LOCATION=1
unset PIP_CONSTRAINT PIP_EXTRA_INDEX_URL PIP_INDEX_URL PIP_TARGET PIP_USER PIP_REQUIRE_VIRTUALENV

host_target() {
  python3 -c 'import sys, platform; m = platform.machine().lower(); a = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(m, m); print(("linux" if sys.platform.startswith("linux") else sys.platform) + "-" + a)'
}
TARGET=${1:-$(host_target)}
case $TARGET in
# the tags after the first ones are google-re2's (glibc 2.28, macOS 13): listed last, they are taken only for a
# package with no wheel of the earlier tags
  linux-x64)    PLATFORMS="manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux_2_5_x86_64 manylinux1_x86_64 manylinux_2_28_x86_64" ;;
  linux-arm64)  PLATFORMS="manylinux_2_17_aarch64 manylinux2014_aarch64 manylinux_2_28_aarch64" ;;
  darwin-x64)   PLATFORMS="macosx_11_0_x86_64 macosx_10_9_universal2 macosx_13_0_x86_64" ;;
  darwin-arm64) PLATFORMS="macosx_11_0_arm64 macosx_10_9_universal2 macosx_13_0_arm64" ;;
  win32-x64)    PLATFORMS="win_amd64" ;;
  wheels)       PLATFORMS="" ;;
  *) echo "bundle-python.sh: unknown target $TARGET (linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64)" >&2; exit 2 ;;
esac

if [ ! -x "$BUILD/env/bin/python" ]; then
  python3 -m venv "$BUILD/env"
fi
PIP=("$BUILD/env/bin/python" -m pip --quiet)

if [ -z "${NO_WHEEL_BUILD:-}" ] || [ ! -d "$BUILD/wheels" ]; then
  rm -rf "$BUILD/wheels"
  "${PIP[@]}" wheel --no-deps --wheel-dir "$BUILD/wheels" -r scripts/bundle-pure.txt ..
fi
[ "$TARGET" = wheels ] && exit 0

rm -rf bundled
mkdir -p bundled/libs bundled/native
"${PIP[@]}" install --no-deps --no-compile --no-index --target bundled/libs "$BUILD"/wheels/*.whl
rm -rf bundled/libs/bin
platform_args=()
for p in $PLATFORMS; do platform_args+=(--platform "$p"); done
# one folder per CPython, fetched side by side (the time goes in waiting for the index and downloads)
pids=()
for version in $PYTHONS; do
  tag=cp${version/./}
  (
    "${PIP[@]}" install --no-deps --no-compile --only-binary :all: --implementation cp --python-version "$version" \
      "${platform_args[@]}" --target "bundled/native/$tag" -r scripts/bundle-native.txt
    rm -rf "bundled/native/$tag/bin"
    # zstandard ships a second, cffi-based backend (half its size) that it falls back to only without backend_c
    rm -f "bundled/native/$tag"/zstandard/_cffi.* "bundled/native/$tag/zstandard/backend_cffi.py"
  ) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done  # set -e: a failed fetch fails the build
pythons_json=""
for version in $PYTHONS; do pythons_json+="${pythons_json:+, }\"$version\""; done
find bundled -name '__pycache__' -prune -exec rm -rf {} +
printf '{"target": "%s", "pythons": [%s], "platforms": "%s"}\n' "$TARGET" "$pythons_json" "$PLATFORMS" > bundled/PLATFORM.json

# on the machine it is for, the bundled server must start on its own: import it away from the source tree
if [ "$TARGET" = "$(host_target)" ]; then
  py="$BUILD/env/bin/python"
  tag=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  if [ -d "bundled/native/$tag" ]; then
    (cd /tmp && PYTHONNOUSERSITE=1 PYTHONPATH="$OLDPWD/bundled/native/$tag:$OLDPWD/bundled/libs" "$OLDPWD/$py" -c \
      'import lsp_server.server, lsp_server.__main__, analysis.cli, zstandard.backend_c, tree_sitter_javascript, pydantic_core')
  fi
fi
echo "bundled the server for $TARGET, CPython $PYTHONS"
