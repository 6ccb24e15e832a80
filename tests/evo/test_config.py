from pathlib import Path

import pytest

from evo.config import ConfigError, load_config

QUICKSTART = Path(__file__).resolve().parents[2] / "configs" / "quickstart.yaml"


def test_quickstart_config_is_valid_and_small():
    config = load_config(QUICKSTART)
    assert config.evolution.population >= 4
    assert config.evolution.generations >= 2
    assert config.llm.model.startswith("offline/")


def test_set_overrides_parse_yaml_values():
    config = load_config(QUICKSTART, ["evolution.population=6", "sandbox.backend=local", "fitness.layers=[schema]"])
    assert config.evolution.population == 6
    assert config.sandbox.backend == "local"
    assert config.fitness.layers == ["schema"]


@pytest.mark.parametrize(
    "override, message",
    [
        ("evolution.populaton=3", "config key 'evolution.populaton' is not a known setting"),
        ("evolution.population=four", "config key 'evolution.population' must be an integer, got 'four'"),
        ("llm.timeout_s=soon", "config key 'llm.timeout_s' must be a number"),
        ("fitness.layers=[schema,telepathy]", "unknown layer 'telepathy'"),
        ("evolution.elitism=9", "elitism must be smaller"),
        ("sandbox.memory_max_mb=1024", "sandbox.memory_max_mb (1024) must be at least sandbox.memory_mb (2048)"),
        # unknown keys and choices suggest the closest one
        (
            "evolution.populaton=3",
            "'evolution.populaton' is not a known setting (did you mean 'evolution.population'?)",
        ),
        ("lm.model=x", "'lm' is not a known setting (did you mean 'llm'?)"),
        (
            "sandbox.install={pkg: {instal: make}}",
            "'sandbox.install.pkg.instal' is not a known setting (did you mean 'sandbox.install.pkg.install'?)",
        ),
        ("sandbox.backend=dockr", "must be one of auto, docker, local, got 'dockr' (did you mean 'docker'?)"),
        ("evolution.strategy_types=[BUGFIX]", "got 'BUGFIX' (did you mean 'BUG_FIX'?)"),
        ("sandbox.cgroup_parent=../docker", "must be a cgroup path such as /sebgen or a slice such as sebgen.slice"),
    ],
)
def test_bad_values_name_the_key(override, message):
    with pytest.raises(ConfigError) as info:
        load_config(QUICKSTART, [override])
    assert message in str(info.value)


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("evolution: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("42\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(scalar)


def test_set_needs_key_and_value():
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        load_config(None, ["evolution.population"])


def test_no_suggestion_when_nothing_is_close():
    with pytest.raises(ConfigError) as info:
        load_config(QUICKSTART, ["evolution.zzzz=1"])
    assert "did you mean" not in str(info.value)


def test_the_archive_default_is_the_archives_measured_threshold():
    from archive.archive import APPROXIMATE_ABOVE
    from evo.config import ArchiveConfig

    assert ArchiveConfig().approximate_above == APPROXIMATE_ABOVE


def test_the_cgroup_parent_reaches_the_sandbox_limits():
    from evo.runtime import make_sandbox

    config = load_config(QUICKSTART, ["sandbox.backend=local", "sandbox.cgroup_parent=/sebgen"])
    backend = make_sandbox(config, log=lambda m: None)
    try:
        assert backend.limits.cgroup_parent == "/sebgen"
    finally:
        backend.close()
