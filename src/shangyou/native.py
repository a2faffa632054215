"""Loading the optional compiled modules (built by ``setup.py`` when a C compiler is present).

``load("shangyou.games.climbing._core")`` gives the module, or None: when ``SHANGYOU_NO_C`` is set
in the environment (the Python code is wanted: no notice), or when the module cannot be imported
or set up, which it says once on standard error, in one line (the rules code itself does no
I/O, so the notice lives here).
"""

from __future__ import annotations

import importlib
import os
import random
import sys

_SAID: set = set()


def disabled() -> bool:
    """``SHANGYOU_NO_C`` is set: every compiled module is off."""
    return bool(os.environ.get("SHANGYOU_NO_C"))


def load(name: str, setup=None):
    """The module ``name``, after ``setup(module)`` when given, or None (see above)."""
    if disabled():
        return None
    try:
        module = importlib.import_module(name)
        if setup is not None:
            setup(module)
        return module
    except (ImportError, TypeError) as e:
        notice(name, e)
        return None


def notice(name: str, why) -> None:
    if name not in _SAID:
        _SAID.add(name)
        sys.stderr.write(f"shangyou: the compiled core ({name}) is not used ({why}); the "
                         "Python code runs instead, slower\n")


def shuffles_alike(module) -> bool:
    """Does ``module.shuffle`` (``games/_shuffle.h``, in both compiled cores) deal exactly as
    this Python's ``random.Random.shuffle``? Each core checks once before dealing with it."""
    for seed in range(20):
        a, b = list(range(54 + seed * 9)), list(range(54 + seed * 9))
        random.Random(seed).shuffle(a)
        module.shuffle(random.Random(seed).getrandbits, b)
        if a != b:
            return False
    return True


def seeds_alike(module) -> bool:
    """Does ``module.seeded_shuffle`` (``games/_shuffle.h``) do what ``random.Random(seed)``,
    its ``randrange(n)`` and its ``shuffle`` do here, and leave the generator's state
    (:func:`shangyou.engine.deal.mt_random`) as they leave it? Checked once, as
    :func:`shuffles_alike`."""
    from .engine.deal import mt_random
    for seed in (0, 1, 7, 2**31 + 5, 2**32, 2**64 - 1):
        for n, size in ((4, 108), (6, 162), (1, 2), (5, 0)):
            r = random.Random(seed)
            a, b = list(range(size)), list(range(size))
            drawn = r.randrange(n)
            r.shuffle(a)
            got, state = module.seeded_shuffle(seed, n, b)
            if got != drawn or a != b or mt_random(state).getstate() != r.getstate():
                return False
    return True


def shuffle(module, rng, cards: list) -> None:
    """``rng.shuffle(cards)``: in C (``module.shuffle``) when a core's module is given and
    ``rng`` is a plain ``random.Random`` (int seeds), else in Python; the same cards in the same
    order either way."""
    if module is not None and type(rng) is random.Random:
        module.shuffle(rng.getrandbits, cards)
    else:
        rng.shuffle(cards)
