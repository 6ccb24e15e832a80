"""An environment build that fails on a transient network error is tried once more, logged; a
real failure (a package that does not exist) is not."""

from pathlib import Path

import pytest

from sandbox.errors import BuildError
from sandbox.images import build_env_image


class _Api:
    def __init__(self, outcomes: list[list[dict]]):
        self.outcomes = outcomes
        self.calls = 0

    def build(self, **kwargs):
        self.calls += 1
        return iter(self.outcomes.pop(0))


class _Client:
    def __init__(self, outcomes: list[list[dict]]):
        self.api = _Api(outcomes)


PIP_TIMEOUT = [
    {"stream": "Collecting attrs\n"},
    {"stream": "ReadTimeoutError: HTTPSConnectionPool(host='pypi.org', port=443): Read timed out.\n"},
    {"error": "The command '/bin/sh -c pip install attrs' returned a non-zero code: 1"},
]
NO_SUCH_PACKAGE = [
    {"stream": "ERROR: Could not find a version that satisfies the requirement nosuchpkg\n"},
    {"stream": "ERROR: No matching distribution found for nosuchpkg\n"},
    {"error": "The command '/bin/sh -c pip install nosuchpkg' returned a non-zero code: 1"},
]
BUILT = [{"stream": "Successfully built 0123456789ab\n"}]


def test_a_transient_network_error_is_retried_once_and_logged(tmp_path: Path):
    client = _Client([PIP_TIMEOUT, BUILT])
    log = tmp_path / "build.log"
    build_env_image(client, "env:t", "FROM base", None, log, {})
    assert client.api.calls == 2
    text = log.read_text()
    assert "transient failure" in text and "Read timed out" in text and "Successfully built" in text


def test_a_transient_error_twice_fails_after_the_second_attempt(tmp_path: Path):
    client = _Client([PIP_TIMEOUT, PIP_TIMEOUT])
    with pytest.raises(BuildError, match="non-zero code"):
        build_env_image(client, "env:t", "FROM base", None, tmp_path / "build.log", {})
    assert client.api.calls == 2


def test_a_real_error_is_not_retried(tmp_path: Path):
    client = _Client([NO_SUCH_PACKAGE, BUILT])
    log = tmp_path / "build.log"
    with pytest.raises(BuildError, match="non-zero code"):
        build_env_image(client, "env:t", "FROM base", None, log, {})
    assert client.api.calls == 1 and "transient failure" not in log.read_text()
