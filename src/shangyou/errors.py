"""The three errors of the public API (all are ``ValueError``s)."""


class NotationError(ValueError):
    """Text that is not valid card notation; the message names the bad token."""


class IllegalMove(ValueError):
    """A move that may not be made now; the message says why. The game is unchanged.

    ``why``: where a rule of the game refuses a play, the rule and its case
    (:class:`shangyou.games.why.Why`: a code, and the explanation in English and Chinese);
    None for other refusals (not your turn, cards not held, bad text)."""

    def __init__(self, message: str = "", why=None):
        super().__init__(message)
        self.why = why


class UnknownOption(ValueError):
    """An unknown preset name, option name or option value."""
