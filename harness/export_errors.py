"""The one error every export step raises: a sentence for the user (the CLI exits 2 with it)."""

from records import UserError


class ExportError(UserError):
    pass
