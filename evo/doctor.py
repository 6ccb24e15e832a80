"""`sebgen doctor`: what this machine can do, and how to get what is missing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from evo.config import Config

Check = tuple[str, bool, str]


def docker_checks(config: Config, clean: bool, prune: bool, runs_dir: Path) -> Iterator[Check]:
    try:
        import docker

        client = docker.from_env(timeout=5)
        version = client.version().get("Version", "?")
    except Exception as exc:  # any failure to reach an engine means "no engine"
        yield (
            "docker engine",
            False,
            f"no engine answers ({exc.__class__.__name__}); the local backend "
            "will run task code unisolated. Install docker.io and start dockerd.",
        )
        return
    yield ("docker engine", True, f"Docker {version}")
    import sandbox

    status = sandbox.base_image_status(client, config.sandbox.base_image, config.sandbox.offline_base_image)
    detail = (
        status.get("detail", "")
        if status.get("available")
        else (
            f"no registry is reachable for {config.sandbox.base_image} and {config.sandbox.offline_base_image} is "
            "missing: build it with `sebgen doctor --build-base-image` (needs root and debootstrap)"
        )
    )
    yield ("base image", bool(status.get("available")), detail)
    if clean:
        yield ("clean", True, f"removed {sandbox.clean_stragglers(client)} SEBGen containers left behind")
    disk = sandbox.disk_report(client)
    yield (
        "disk",
        True,
        f"{disk.get('images', 0)} SEBGen environment images use about {disk.get('unique_mb', 0):.0f} MB "
        f"together (shared layers; {disk.get('size_mb', 0):.0f} MB if each were counted whole)",
    )
    if prune:
        keep = referenced_images(runs_dir)
        removed = sandbox.prune_images(client, keep)
        yield ("prune", True, f"removed {len(removed)} images no run references")


def referenced_images(runs_dir: Path) -> set[str]:
    """Environment images named by tasks of any run folder."""
    from evo.runfolder import RunFolder

    keep: set[str] = set()
    for folder in sorted(p for p in Path(runs_dir).glob("*") if p.is_dir()):
        keep |= RunFolder(folder).images()
    return keep


def embedding_check(config: Config) -> Check:
    try:
        from archive import get_embedder

        embedder = get_embedder(config.archive.model)
        return ("embedding model", True, f"{config.archive.model} (dim {embedder.dim})")
    except Exception as exc:
        return ("embedding model", False, f"{config.archive.model} could not load: {exc}")


def llm_check(config: Config) -> Check:
    from evo.pipeline import check_llm
    from llm import LLMError

    try:
        check_llm(config)
    except LLMError as exc:
        return ("llm model", False, str(exc))
    note = (
        " (offline provider: a deterministic stand-in for CI and demos)"
        if config.llm.model.startswith("offline/")
        else ""
    )
    return ("llm model", True, config.llm.model + note)


def local_model_check(config: Config) -> Check:
    """A configured local GGUF model: where it is, its size, its load time and its speed."""
    from llm import LocalModelError, load_local_model

    try:
        model = load_local_model(config.llm.model, config.llm.local.model_dump())
        tokens_per_s, generated = model.tokens_per_s()
    except LocalModelError as exc:
        return ("local model", False, str(exc))
    return (
        "local model",
        True,
        f"{model.path} ({model.size_bytes / 2**20:.0f} MiB), loaded in {model.load_s:.1f}s, "
        f"{tokens_per_s:.1f} tokens/s on a short prompt ({generated} tokens, {model.settings.n_threads} threads, "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '')})",
    )


def run_checks(
    config: Config, *, clean: bool = False, prune: bool = False, runs_dir: Path = Path("runs")
) -> list[Check]:
    checks = list(docker_checks(config, clean, prune, runs_dir))
    checks.append(embedding_check(config))
    from llm import is_local_model

    if is_local_model(config.llm.model):  # before the LLM check, which reuses the loaded model
        checks.append(local_model_check(config))
    checks.append(llm_check(config))
    return checks
