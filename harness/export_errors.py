"""The one error every export step raises: a sentence for the user (the CLI exits 2 with it)."""


class ExportError(ValueError):
    pass
