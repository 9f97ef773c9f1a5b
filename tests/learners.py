"""People learning NLK through the fake Discord, by taps only: a newcomer taking ``/nlk learn``
(reading the coach's words and tapping the button they name, and a wrong one now and then),
and a player tapping through a ``/nlk practice`` hand with a Hint now and then. Shared by the
lesson's and the practice's tests and by the load benchmark (``tests/load.py``), which passes
its pausing ``Fingers`` for ``fake``."""

from __future__ import annotations

import random
import re
from typing import Any

from cogs.practice import ids as practice_ids

RULE = re.compile(r"\(R(\d\.\d)\)|R(\d\.\d)")
BOLD = re.compile(r"\*\*(.+?)\*\*")
HINT = re.compile(r"^💡 .+\(R\d\.\d\)$", re.M)
LESSON_WAYS = ("skip", "back", "again")


def description(message: Any) -> str:
    return message.embeds[0]["description"]


def rules_named(text: str) -> set[str]:
    return {"R" + (a or b) for a, b in RULE.findall(text)}


# --- the lesson ------------------------------------------------------------------------------


def coach_line(message: Any) -> str:
    return [line for line in description(message).splitlines() if line.startswith("💬")][-1]


def move_buttons(message: Any) -> list[Any]:
    """A lesson message's moves (not its ways around the lesson, nor its rule buttons)."""
    return [b for b in message.buttons() if b.custom_id.split(":")[3] not in LESSON_WAYS
            and not b.custom_id.split(":")[3].startswith("rule.")]


def lesson_way(message: Any, act: str) -> Any | None:
    found = [b for b in message.buttons() if b.custom_id.endswith(":" + act)]
    return found[0] if found else None


def pointed_at(message: Any) -> Any | None:
    """The button whose label the coach's line names in bold, if any."""
    named = set(BOLD.findall(coach_line(message)))
    found = [b for b in move_buttons(message) if b.label in named]
    return found[0] if found else None


async def learn(fake: Any, user: str, rng: random.Random, *, taps_left: int = 60,
                stop_after: int | None = None, channel: int | None = None
                ) -> tuple[Any, int, int, set[str]]:
    """Play the lesson as a newcomer: a wrong tap now and then, then what the coach says
    (in ``channel``: default, the server's). Returns the message, the taps, the wrong taps
    and the rule numbers the coach named."""
    ix = await fake.slash(user, channel, "nlk", "learn")
    message = await ix.wait_message()
    assert message.ephemeral
    return await coach_through(fake, user, message, rng, taps_left=taps_left,
                               stop_after=stop_after)


async def coach_through(fake: Any, user: str, message: Any, rng: random.Random, *,
                        taps_left: int = 60, stop_after: int | None = None,
                        wrong_chance: float = 0.5) -> tuple[Any, int, int, set[str]]:
    """Tap through the lesson ``message`` shows, from its step to the end (or until
    ``stop_after`` right taps): where the coach names a button, a wrong one with
    ``wrong_chance``, else the one named; a random move where the coach names none."""
    taps = wrong = right = 0
    named = rules_named(description(message))
    while lesson_way(message, "again") is None:
        assert taps < taps_left, f"not finished after {taps} taps"
        wanted = pointed_at(message)
        others = [b for b in move_buttons(message) if wanted is None or b.custom_id !=
                  wanted.custom_id]
        if wanted is None or (others and rng.random() < wrong_chance):
            tap = rng.choice(others or move_buttons(message))
        else:
            tap = wanted
        before = coach_line(message)
        ix = await fake.click(user, message, custom_id=tap.custom_id)
        assert (await ix.wait_response()).type == 7  # the lesson's message, edited
        taps += 1
        text = description(message)
        if wanted is not None and tap.custom_id != wanted.custom_id:
            wrong += 1
            first = text.splitlines()[0]
            assert first.startswith("❌") and len(first) > 30, first  # explained
            assert coach_line(message) == before  # nothing played: the same step
        else:
            right += 1
            named |= rules_named("\n".join(line for line in text.splitlines()
                                            if not line.startswith("❌")))
        if stop_after is not None and right >= stop_after:
            break
    return message, taps, wrong, named


# --- practice --------------------------------------------------------------------------------


def practice_moves(message: Any) -> list[Any]:
    """A practice message's move buttons (not Hint, not Play again, not a rule's)."""
    return [b for b in message.buttons()
            if b.custom_id.split(":")[3] not in practice_ids.WAYS
            and not b.custom_id.split(":")[3].startswith("rule.")]


def practice_way(message: Any, act: str) -> Any | None:
    found = [b for b in message.buttons() if b.custom_id.endswith(":" + act)]
    return found[0] if found else None


async def play_out(fake: Any, user: str, message: Any, rng: random.Random, *,
                   taps_left: int = 400, stop_after: int | None = None,
                   hint_chance: float = 0.3) -> tuple[Any, int, int]:
    """Tap through the practice hand: a hint before a move with ``hint_chance``, then the
    hinted (green) move, or a move at random. Returns the message, the taps and the
    hints."""
    taps = hints = 0
    while practice_way(message, "again") is None:
        assert taps < taps_left, f"not over after {taps} taps"
        if stop_after is not None and taps >= stop_after:
            break
        green = []
        if rng.random() < hint_chance:
            hint = practice_way(message, "hint")
            assert hint is not None, description(message)
            ix = await fake.click(user, message, custom_id=hint.custom_id)
            assert (await ix.wait_response()).type == 7
            assert HINT.search(description(message)), description(message)
            hints += 1
            green = [b for b in practice_moves(message) if b.style == 3]
        if green:
            tap = green[0]
        elif practice_moves(message):
            tap = rng.choice(practice_moves(message))
        else:  # more moves than buttons: a menu of cards
            menu = message.selects()[0]
            ix = await fake.select(user, message, menu.custom_id,
                                   [rng.choice(menu.options)["value"]])
            assert (await ix.wait_response()).type == 7
            taps += 1
            continue
        ix = await fake.click(user, message, custom_id=tap.custom_id)
        assert (await ix.wait_response()).type == 7
        taps += 1
    return message, taps, hints
