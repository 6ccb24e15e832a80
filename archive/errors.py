"""The one exception type callers of the archive need to catch."""

from records import UserError


class ArchiveError(UserError):
    """A problem with the archive the user can fix: bad path, wrong model, bad task record."""
