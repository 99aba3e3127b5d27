#!/usr/bin/env bash
# Installs the project's wheel and its pinned dependencies into bundled/libs, the server the extension runs.
# Compiled dependencies (tree-sitter, pydantic-core, zstandard) make the result specific to this platform and
# this Python minor version: build the .vsix on the platform and Python it is for.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
rm -rf bundled/libs
mkdir -p bundled/libs
"$PYTHON" -m pip install --quiet --no-compile --target bundled/libs ..
find bundled/libs -name '__pycache__' -prune -exec rm -rf {} +
rm -rf bundled/libs/bin
# the bundled server must start on its own: import it away from the source tree
(cd /tmp && PYTHONNOUSERSITE=1 PYTHONPATH="$OLDPWD/bundled/libs" "$PYTHON" -c 'import lsp_server.server, analysis.cli')
"$PYTHON" -c 'import sys, platform; print(f"bundled for {platform.system().lower()}-{platform.machine()} CPython {sys.version_info[0]}.{sys.version_info[1]}")' \
  | tee bundled/PLATFORM
