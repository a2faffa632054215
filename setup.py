"""Build hook for the optional C extensions (``shangyou.env._fastobs``, the observation helpers;
``shangyou.games.climbing._core``, the compiled core of the climbing games); everything else is
in pyproject.toml. Without a C compiler the build goes on and the package uses its Python path."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("shangyou.env._fastobs", ["src/shangyou/env/_fastobs.c"], optional=True),
    Extension("shangyou.games.climbing._core", ["src/shangyou/games/climbing/_core.c"],
              optional=True, extra_compile_args=["-Wall"]),
])
