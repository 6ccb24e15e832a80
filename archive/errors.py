"""The one exception type callers of the archive need to catch."""


class ArchiveError(Exception):
    """A problem with the archive the user can fix: bad path, wrong model, bad task record."""
