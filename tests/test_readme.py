"""The README a newcomer reads (issue 37): the essentials first, one test time that
``pyproject.toml`` agrees with, no placeholder owner, and the operators' pages linked."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_newcomer_finds_set_up_the_two_commands_and_playing_first():
    headings = [line for line in README.splitlines() if line.startswith("## ")]
    assert headings[:3] == ["## Setting up the bot", "## Two commands", "## Playing"]
    assert README.index("## Playing") < 80 * 72  # within the first screens of text
    playing = README.split("\n## Playing\n", 1)[1]
    assert playing.lstrip().startswith("New to NLK? `/nlk learn`")


def test_the_readmes_two_commands_are_the_ones_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in ("python3 -m venv .venv && .venv/bin/pip install -e . && "
                    ".venv/bin/python -m bot",
                    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
                    ".venv/bin/python -m pytest -q"):
        assert f"```sh\n{command}\n```" in README
    assert "pip install --quiet --disable-pip-version-check -e '.[test]' && " \
        ".venv/bin/python -m pytest -q" in ci


def test_the_test_time_is_given_once_and_pyproject_agrees():
    times = re.findall(r"about\s+(\d+)\s+minutes", README)
    assert len(times) == 1, times
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.findall(r"about\s+(\d+)\s*#?\s*minutes", pyproject.replace("\n#", " ")) == times


def test_no_placeholder_owner_and_the_operators_pages_exist():
    for page in ("README.md", "docs/operating.md", "docs/figures.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        assert "OWNER" not in text, page
    for link in re.findall(r"\]\((docs/[a-z]+\.md)", README):
        assert (ROOT / link).is_file(), link
