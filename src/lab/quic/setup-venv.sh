#!/usr/bin/env bash
# Creates build/venv with aioquic for the aioquic lab origin. Idempotent: a venv that already
# satisfies requirements.txt is left alone (a marker holds the requirements' hash).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
venv="${CCB_VENV:-$repo/build/venv}"
req="$here/requirements.txt"
py="${PYTHON:-python3}"

want="$(sha256sum "$req" | cut -d' ' -f1)"
marker="$venv/.ccb-requirements.sha256"
if [[ -x "$venv/bin/python" && -f "$marker" && "$(cat "$marker")" == "$want" ]] \
   && "$venv/bin/python" -c 'import aioquic' 2>/dev/null; then
  echo "venv up to date: $venv"
  exit 0
fi

if [[ ! -x "$venv/bin/python" ]]; then
  "$py" -m venv "$venv" || { echo "python venv failed: install python3-venv (apt-get install python3-venv)" >&2; exit 1; }
fi
# --only-binary: aioquic ships manylinux wheels; never fall back to compiling its C parts.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$req"
"$venv/bin/python" -c 'import aioquic; print("aioquic", aioquic.__version__)'
echo "$want" > "$marker"
