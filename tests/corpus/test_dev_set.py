"""Where benches and tests find the dev set of real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import dev_set

BESIDE_THE_CHECKOUT = Path(__file__).resolve().parents[2].parent / "shared"


def test_the_dev_set_defaults_to_the_shared_folder_beside_the_checkout(monkeypatch):
    monkeypatch.delenv("SEBGEN_REAL_REPOS", raising=False)
    monkeypatch.delenv("SEBGEN_REAL_REPOS_JS", raising=False)
    assert dev_set() == BESIDE_THE_CHECKOUT / "real-repos"
    assert dev_set("javascript") == dev_set("typescript") == BESIDE_THE_CHECKOUT / "real-repos-js"


def test_each_language_has_its_own_override(monkeypatch, tmp_path):
    monkeypatch.setenv("SEBGEN_REAL_REPOS", str(tmp_path / "py"))
    monkeypatch.setenv("SEBGEN_REAL_REPOS_JS", str(tmp_path / "js"))
    assert dev_set("python") == tmp_path / "py"
    assert dev_set("javascript") == dev_set("typescript") == tmp_path / "js"
    monkeypatch.setenv("SEBGEN_REAL_REPOS", "")  # empty is unset, not the current folder
    assert dev_set("python") == BESIDE_THE_CHECKOUT / "real-repos"


def test_a_language_without_a_dev_set_is_refused():
    with pytest.raises(ValueError, match="'rust'"):
        dev_set("rust")
