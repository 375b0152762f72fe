#!/usr/bin/env bash
# A Python environment with the official Temporal SDK, for the test that starts runs from Python.
# Kept in the user-level cache beside the Temporal CLI, so every clone on the machine reuses it.
set -euo pipefail
venv="${XDG_CACHE_HOME:-$HOME/.cache}/got-temporal/py-venv-temporalio-1.20.0"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import temporalio, jsonschema' 2>/dev/null; then
  echo "Creating $venv with temporalio and jsonschema from PyPI..." >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check temporalio==1.20.0 jsonschema==4.26.0 >&2
fi
echo "$venv/bin/python"
