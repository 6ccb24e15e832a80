"""The one base class of user errors: what the CLI reports as one sentence and exit code 2."""


class UserError(Exception):
    """The user asked for something that cannot be done (a bad path, config or file): the
    message is the sentence the user reads, no traceback."""
