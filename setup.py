"""Only the package list, which pyproject.toml can't express: every package found under
bot/, cogs/ and rules/, plus bot.migrations, which lives in the top-level migrations/ folder
(see package-dir in pyproject.toml). Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["bot", "bot.*", "cogs", "cogs.*", "rules", "rules.*"]),
                "bot.migrations"])
