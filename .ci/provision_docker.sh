#!/usr/bin/env bash
# Provision a Docker engine and SEBGen's offline base image for CI. Idempotent: every step
# is skipped when its result is already there. Needs root (apt-get, dockerd).
set -euo pipefail

BASE_IMAGE="${SEBGEN_OFFLINE_BASE_IMAGE:-sebgen-base:bookworm}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"

die() { echo "provision_docker: $*" >&2; exit 1; }
log() { echo "provision_docker: $*"; }

# 1. packages
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q || die "apt-get update failed"
    apt-get install -y -q "${missing[@]}" || die "apt-get install ${missing[*]} failed"
fi

# 2. engine
if docker info >/dev/null 2>&1; then
    log "Docker engine already answers"
else
    log "starting dockerd (log: /tmp/dockerd.log)"
    nohup dockerd >/tmp/dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || die "dockerd did not answer within 60 s; see /tmp/dockerd.log: $(tail -n 3 /tmp/dockerd.log 2>/dev/null | tr '\n' ' ')"
    log "Docker engine is up ($(docker version --format '{{.Server.Version}}'))"
fi

# 3. offline base image (no registry is reachable from CI)
if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    log "base image $BASE_IMAGE already exists"
else
    log "building $BASE_IMAGE with debootstrap (about a minute)"
    "$PYTHON" -c "import docker" 2>/dev/null || pip install -q docker   # the builder's only dependency
    (cd "$ROOT" && "$PYTHON" -c "import sys; from sandbox import build_offline_base_image; build_offline_base_image(sys.argv[1])" "$BASE_IMAGE") \
        || die "building the offline base image $BASE_IMAGE failed (see the message above)"
fi

# 4. Node 20 and its npm for the JavaScript images (tests/sandbox/test_js_docker.py): fetched once
# from the npm registry into SEBGen's cache (~45 MB); a run without a registry uses the cached copy
if (cd "$ROOT" && "$PYTHON" -c "from sandbox.js_dist import node_tarball, npm_tarball; print(node_tarball(20).version, npm_tarball(20).version)") ; then
    log "Node 20 and npm cached for JavaScript images"
else
    log "WARNING: Node 20 could not be fetched from the npm registry; the JavaScript docker tests will fail in CI"
fi
log "ready: engine up, base image $BASE_IMAGE present"
