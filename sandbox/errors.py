"""Exceptions a user of the sandbox can cause; each carries one clear sentence."""

from records import UserError


class SandboxError(UserError):
    """The sandbox cannot run what was asked (no engine, bad configuration, missing image)."""


class PatchError(SandboxError):
    """A patch does not apply to the exported tree."""


class BuildError(SandboxError):
    """An environment image or virtualenv could not be built; the message ends with the log tail."""
