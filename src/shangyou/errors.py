"""The three errors of the public API (all are ``ValueError``s)."""


class NotationError(ValueError):
    """Text that is not valid card notation; the message names the bad token."""


class IllegalMove(ValueError):
    """A move that may not be made now; the message says why. The game is unchanged."""


class UnknownOption(ValueError):
    """An unknown preset name, option name or option value."""
