"""Where validation containers' cgroups go: `sandbox.cgroup_parent: auto` decided from `docker info`."""

from __future__ import annotations

import pytest

from sandbox.containers import AUTO_CGROUP_PARENT, fair_cgroup_parent

# `docker info` as engines of each kind answer it (the keys the decision reads, plus neighbours)
CGROUP_V1_CGROUPFS = {
    "CgroupDriver": "cgroupfs",
    "CgroupVersion": "1",
    "SecurityOptions": ["name=seccomp,profile=default"],
}
CGROUP_V2_SYSTEMD = {
    "CgroupDriver": "systemd",
    "CgroupVersion": "2",
    "SecurityOptions": ["name=apparmor", "name=seccomp,profile=default", "name=cgroupns"],
}
CGROUP_V1_SYSTEMD = {
    "CgroupDriver": "systemd",
    "CgroupVersion": "1",
    "SecurityOptions": ["name=seccomp,profile=default"],
}
CGROUP_V2_CGROUPFS = {
    "CgroupDriver": "cgroupfs",
    "CgroupVersion": "2",
    "SecurityOptions": ["name=seccomp,profile=unconfined", "name=cgroupns"],
}
ROOTLESS_V2_SYSTEMD = {
    "CgroupDriver": "systemd",
    "CgroupVersion": "2",
    "SecurityOptions": ["name=seccomp,profile=default", "name=rootless", "name=cgroupns"],
}
ROOTLESS_CGROUPFS = {"CgroupDriver": "cgroupfs", "CgroupVersion": "2", "SecurityOptions": ["name=rootless"]}
ROOTLESS_V1 = {"CgroupDriver": "none", "CgroupVersion": "1", "SecurityOptions": ["name=rootless"]}
OLD_ENGINE = {"CgroupDriver": "cgroupfs"}  # before API 1.40: no CgroupVersion, no SecurityOptions list


@pytest.mark.parametrize("info", [CGROUP_V1_CGROUPFS, CGROUP_V2_CGROUPFS, OLD_ENGINE])
def test_auto_gives_each_container_a_top_level_group_under_the_cgroupfs_driver(info):
    # the engine's own /docker group weighs as one host process for all containers together
    assert fair_cgroup_parent(AUTO_CGROUP_PARENT, info) == "/"


@pytest.mark.parametrize(
    "info", [CGROUP_V2_SYSTEMD, CGROUP_V1_SYSTEMD, ROOTLESS_V2_SYSTEMD, ROOTLESS_CGROUPFS, ROOTLESS_V1, {}]
)
def test_auto_keeps_the_engines_parent_with_systemd_rootless_or_an_unknown_driver(info):
    assert fair_cgroup_parent(AUTO_CGROUP_PARENT, info) == ""


@pytest.mark.parametrize("wanted", ["", "/sebgen", "sebgen.slice"])
@pytest.mark.parametrize("info", [CGROUP_V1_CGROUPFS, CGROUP_V2_SYSTEMD])
def test_a_configured_parent_is_used_as_given(wanted, info):
    assert fair_cgroup_parent(wanted, info) == wanted


def test_auto_is_the_default_of_the_config_and_the_limits():
    from evo.config import SandboxConfig
    from sandbox import Limits

    assert SandboxConfig().cgroup_parent == Limits().cgroup_parent == AUTO_CGROUP_PARENT
