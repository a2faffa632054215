"""The terminal game: ``shangyou play``, ``shangyou presets``, ``shangyou replay``.

Modules: :mod:`.main` (the typer app and its options), :mod:`.session` (the play loop of one
human against bots), :mod:`.inputs` (what the human types, turned into move texts),
:mod:`.render` (everything printed: cards, table, trick, summaries), :mod:`.sheng_ji` (the
trick-taking Sheng ji presets: their table, narration, input and play loop) and :mod:`.replay`.
The CLI only uses the public game API (``new_match``, ``view``, ``legal_moves``, ``apply``).
"""
