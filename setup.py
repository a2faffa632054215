"""Build hook for the optional C extensions (``shangyou.env._fastobs``, the observation helpers;
``shangyou.games.climbing._core``, the compiled core of the climbing games;
``shangyou.games.sheng_ji._core``, that of Sheng ji); everything else is
in pyproject.toml. Without a C compiler the build goes on and the package uses its Python path."""

from setuptools import Extension, setup

CORE = ("_core", "_core_pagat", "_core_owen", "_core_zf", "_core_winner", "_core_plan",
        "_core_playout", "_core_steps", "_core_pagat_steps", "_core_moves", "_core_groups",
        "_core_apply", "_core_batch_rules", "_core_batch", "_core_methods", "_core_hplan")
# the compiled core of Sheng ji (docs/core-sheng-ji.md)
SHENG_JI = ("_core", "_core_seq", "_core_units", "_core_follow", "_core_moves", "_core_apply",
            "_core_rollout", "_core_row", "_core_batch", "_core_methods", "_core_records",
            "_core_hand", "_core_hand_play", "_core_ends", "_core_draw")
# what both batch engines include (the generator, the thread pool, the Batch type's plumbing)
BATCH_H = [f"src/shangyou/games/{h}.h" for h in ("_mt", "_batch_pool", "_batch_type")]

# Both cores: -ffp-contract=off (see each core's note below); POSIX threads; one unit at link
# time (-flto: the calls between a core's files are direct and may be inlined, and only the
# module's init function is exported, so no call goes through the PLT; -fno-plt does the same
# for the calls into libpython). Measured in docs/benchmarks-single.md.
CFLAGS = ["-Wall", "-ffp-contract=off", "-pthread", "-fvisibility=hidden", "-flto=auto",
          "-fno-plt"]
LDFLAGS = ["-pthread", "-flto=auto"]

setup(ext_modules=[
    Extension("shangyou.env._fastobs",
              ["src/shangyou/env/_fastobs.c", "src/shangyou/env/_fastobs_obs.c"],
              depends=["src/shangyou/env/_fastobs.h"], optional=True),
    Extension("shangyou.games.climbing._core",
              [f"src/shangyou/games/climbing/{f}.c" for f in CORE],
              depends=[f"src/shangyou/games/climbing/{h}.h" for h in ("_core", "_core_plan",
                                                                        "_core_batch")]
              + ["src/shangyou/games/_shuffle.h", "src/shangyou/games/_dict_helpers.h",
                 "src/shangyou/games/_methods.h", "src/shangyou/games/_slots.h",
                 "src/shangyou/games/_lazy_seq.h"] + BATCH_H,
              optional=True,
              # the playout policy's plan costs must add up exactly as in Python; the
              # batch engine's thread pool (_core_batch.c) needs POSIX threads
              extra_compile_args=CFLAGS, extra_link_args=LDFLAGS),
    Extension("shangyou.games.sheng_ji._core",
              [f"src/shangyou/games/sheng_ji/{f}.c" for f in SHENG_JI],
              depends=["src/shangyou/games/sheng_ji/_core.h",
                       "src/shangyou/games/sheng_ji/_core_row.h",
                       "src/shangyou/games/sheng_ji/_core_hand.h",
                       "src/shangyou/games/sheng_ji/_core_ends.h", "src/shangyou/games/_shuffle.h",
                       "src/shangyou/games/_dict_helpers.h", "src/shangyou/games/_methods.h",
                       "src/shangyou/games/_slots.h", "src/shangyou/games/_lazy_seq.h"]
              + BATCH_H,
              optional=True,
              # the search's playout adds its lead scores exactly as in Python; the batch
              # engine's thread pool (_core_batch.c, ../_batch_pool.h) needs POSIX threads
              extra_compile_args=CFLAGS, extra_link_args=LDFLAGS),
])
