"""Training of the ``learned`` bot level: Deep Monte-Carlo self-play against a league
(``shangyou train``; needs the ``train`` extra: ``pip install 'shangyou[train]'``).

>>> from shangyou.train import TrainConfig, train
>>> train(TrainConfig(players=(4,), hands_per_round=8), "runs/tiny", hands=64)  # doctest: +SKIP

See ``docs/training.md``.
"""

from __future__ import annotations

from .config import TrainConfig, parse_opponents

__all__ = ["TrainConfig", "parse_opponents", "train", "require_torch"]


def require_torch():
    """The torch module, or a one-line ModuleNotFoundError naming the install command."""
    try:
        import torch
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(
            f"shangyou train needs PyTorch ({missing.name} is missing): "
            "pip install 'shangyou[train]'", name=missing.name) from None
    return torch


def train(cfg: TrainConfig, out, **kwargs):
    """Train into the folder ``out`` (resuming from its latest checkpoint); see
    :func:`shangyou.train.dmc.run`."""
    require_torch()
    from .dmc import run
    return run(cfg, out, **kwargs)
