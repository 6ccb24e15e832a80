#!/usr/bin/env bash
# Provision the CI smoke on several Pythons (tests/test_python_versions.py): for the oldest and the
# newest Python >= 3.10 that pyenv keeps, a venv holding SEBGen's dependencies (installed from
# the package indexes into a fresh venv), so the test can install SEBGen itself into a fresh venv
# in seconds, without the network. torch is installed first and alone (a CPU wheel where the
# machine has one; elsewhere PyPI's build, about 4.7 GB and two minutes, which runs on the CPU
# all the same), then the rest, the embedding stack included: `generate` reads prompts with it.
# Idempotent: a venv is reused while the dependency list is unchanged.
# Writes $CACHE/pythons.txt: one "python dependency-site-packages" line per Python.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${SEBGEN_PYTHONS_CACHE:-$HOME/.cache/sebgen/pythons}"
PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
HOST_PYTHON="${PYTHON:-python3}"

die() { echo "provision_pythons: $*" >&2; exit 1; }
log() { echo "provision_pythons: $*"; }

mapfile -t versions < <(ls "$PYENV_ROOT/versions" 2>/dev/null | grep -E '^3\.[0-9]+\.[0-9]+$' \
                        | awk -F. '$2 >= 10' | sort -V)
[ "${#versions[@]}" -gt 0 ] || die "no Python >= 3.10 under $PYENV_ROOT/versions"
chosen=("${versions[0]}")
[ "${versions[-1]}" != "${versions[0]}" ] && chosen+=("${versions[-1]}")

mkdir -p "$CACHE"
requirements="$CACHE/requirements.txt"
"$HOST_PYTHON" - "$ROOT/pyproject.toml" > "$requirements.new" <<'PY'
import re, sys
try:
    import tomllib
except ModuleNotFoundError:  # the host may be 3.10
    import tomli as tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
for dep in project["dependencies"] + ["setuptools>=68", "wheel"]:
    print(dep)
PY
echo "torch==2.13.0" >> "$requirements.new"   # in the key: a new torch makes new venvs
mv "$requirements.new" "$requirements"
key="$(sha256sum "$requirements" | cut -c1-12)"

: > "$CACHE/pythons.txt.new"
for version in "${chosen[@]}"; do
    python="$PYENV_ROOT/versions/$version/bin/python"
    deps="$CACHE/deps-$version-$key"
    if [ -f "$deps/.complete" ]; then
        log "Python $version: dependencies in $deps are ready"
    else
        log "Python $version: installing the dependencies into a fresh venv $deps"
        rm -rf "$deps"
        "$python" -m venv "$deps" || die "python $version cannot make a venv"
        # torch before sentence-transformers, or pip picks its own torch
        "$deps/bin/python" -m pip install -q torch==2.13.0 || die "pip install torch failed for Python $version"
        "$deps/bin/python" -m pip install -q -r "$requirements" || die "pip install failed for Python $version"
        touch "$deps/.complete"
    fi
    site="$("$deps/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    echo "$python $site" >> "$CACHE/pythons.txt.new"
done
mv "$CACHE/pythons.txt.new" "$CACHE/pythons.txt"
for stale in "$CACHE"/deps-*; do   # venvs of an older dependency list
    if [ -d "$stale" ] && [[ "$stale" != *"-$key" ]]; then rm -rf "$stale"; fi
done
log "smoke Pythons: ${chosen[*]} (listed in $CACHE/pythons.txt)"
