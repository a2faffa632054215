"""Build hook for the one optional C extension (``shangyou.env._fastobs``); everything else is
in pyproject.toml. Without a C compiler the build goes on and the package uses its Python path."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("shangyou.env._fastobs", ["src/shangyou/env/_fastobs.c"],
                             optional=True)])
