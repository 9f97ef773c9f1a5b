"""Play-flow benchmark: how many taps a turn costs a person, and how far the table lags.

    python -m tests.playflow [--people 4] [--ai 2] [--hands 3] [--pace 1.0] [--json]
                             [--pictures on|four-colour|off]

One table in one channel, the bot as ``python -m bot`` in a child process (as in
``tests.load``), played by scripted people who use the interface as a person would: they look
only at the newest few messages in the channel and at their own open hand (never at a custom
id they remembered), and tap once per decision when the interface lets them. People play at a
steady pace: a move tap comes ``--pace`` seconds after the previous one at the table (and at
least ``--reaction`` seconds after the person saw their turn); AI seats move at the bot's own
pace. It prints one JSON object, with per phase (``collect``, ``shed``)::

    {"decisions", "taps_per_decision", "no_choice_turns", "no_choice_taps",
     "table_lag_s": {"p50", "p90", "max", "n"}}

- a **decision** is a turn step where the person had two or more moves to choose from; its
  taps are the move itself plus every tap spent reaching it (opening a hand, a refused tap);
- **no-choice** steps offered one move only (phase one plays those by itself: 0 is the target);
- **table lag** is, for each move a person tapped, the time from the tap reaching Discord to
  the table message first showing that move (its footer's move number), on the fake's clock;
- ``stale_pings`` counts channel messages still saying "your turn" once a hand is over;
- ``refused_taps`` counts move taps refused (a stale button: the message tapped was behind);
- ``table_message`` counts the table message's edits through its channel
  (``channel_edits``), those showing the same move as the edit before (``repeated``: a
  second edit for one change, which spends the channel's five edits in five seconds twice),
  and the gaps over 1.5 s between two of them (``gaps_over_1_5_s``: at a move a second, the
  table message behind the game, or nobody moving).

Everything stays on 127.0.0.1, every wait has a timeout, and the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import Component, Message
from tests.load import bot_process, percentiles, print_report, set_pictures
from tests.nlk_driver import ACTOR, is_hand, my_turn, title

RECENT = 5  # how many of the newest channel messages a person takes in at a glance
MOVES = {"give", "draw", "keep", "play", "take"}
SHED_MOVES = {"play", "take"}
HAND_NUMBER = re.compile(r"hand (\d+)")
MOVE_NUMBER = re.compile(r"move (\d+)")
FOLLOW_UP = 0.2  # how long a person reads below an answer for a private refusal


async def told_out_of_date(ix: Any) -> bool:
    """Whether a tap on the table message answered by bringing it up to date (it showed a
    move already made) was refused: the refusal follows privately, at once."""
    try:
        await ix.wait_followups(timeout=FOLLOW_UP)
    except AssertionError:
        return False
    return any("out of date" in m.text() for m in ix.followups)


def action_of(custom_id: str | None) -> tuple[int | None, str]:
    """``(version, action)`` of an NLK control (``nlk:<table>:<version>:<action>[.arg]``)."""
    parts = (custom_id or "").split(":")
    if len(parts) < 4 or not parts[0].startswith("nlk"):
        return None, ""
    return (int(parts[2]) if parts[2].isdigit() else None), parts[3].split(".")[0]


def moves_on(message: Message) -> list[tuple[Component, str | None]]:
    """The move controls a message offers: ``(button, None)`` or ``(select, value)``."""
    found: list[tuple[Component, str | None]] = []
    for item in message.interactive():
        _, act = action_of(item.custom_id)
        if act not in MOVES:
            continue
        if item.is_select:
            found += [(item, option["value"]) for option in item.raw.get("options", [])]
        else:
            found.append((item, None))
    return found


def footer(version_embeds: list[dict[str, Any]]) -> str:
    return version_embeds[0].get("footer", {}).get("text", "") if version_embeds else ""


@dataclass
class PhaseFigures:
    decisions: int = 0
    decision_taps: int = 0
    no_choice_turns: int = 0
    no_choice_taps: int = 0
    lags: list[float] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        lag = percentiles(self.lags)
        return {"decisions": self.decisions,
                "taps_per_decision": round(self.decision_taps / self.decisions, 3)
                if self.decisions else None,
                "no_choice_turns": self.no_choice_turns, "no_choice_taps": self.no_choice_taps,
                "table_lag_s": {"p50": round(lag["p50"], 3), "p90": round(lag["p90"], 3),
                                "max": round(lag["max"], 3), "n": len(self.lags)}}


@dataclass
class Move:
    """A move a person tapped: when it reached Discord, and which state it changed."""

    at: float
    hand: int
    version: int
    phase: str


class Flow:
    """One table's channel, its people, and what they did."""

    def __init__(self, fake: FakeDiscord, channel: int, *, pace: float, reaction: float,
                 rng: random.Random) -> None:
        self.fake = fake
        self.channel = channel
        self.pace = pace
        self.reaction = reaction
        self.rng = rng
        self.table: Message | None = None
        self.last_move = 0.0
        self.finished = False
        self.phases = {"collect": PhaseFigures(), "shed": PhaseFigures()}
        self.moves: list[Move] = []
        self.people: list[Person] = []
        self.started = self.now()
        self.progress = False  # say on stderr when each hand ends
        self.between_hands_taps = 0
        self.stale_pings = 0
        self.refused_taps = 0

    def note(self, text: str) -> None:
        if self.progress:
            print(f"{self.now() - self.started:7.1f} {text}", file=sys.stderr)

    def now(self) -> float:
        return self.fake.state.clock()

    def recent(self) -> list[Message]:
        """The newest public messages in the channel, newest first."""
        found = []
        for message in reversed(self.fake.state.channel_messages[self.channel]):
            if not message.deleted and message.visible_to is None:
                found.append(message)
                if len(found) == RECENT:
                    break
        return found

    def hand_of(self, user_id: int) -> Message | None:
        """The newest hand message this person still has open."""
        for message in reversed(self.fake.state.channel_messages[self.channel]):
            if message.visible_to == user_id and not message.deleted and is_hand(message):
                return message
        return None


class Person:
    """A player who looks at the newest messages and their own open hand, and taps."""

    def __init__(self, flow: Flow, name: str) -> None:
        self.flow = flow
        self.name = name
        self.id = flow.fake.user(name).id
        self.spent = 0  # taps spent towards the next move (opening a hand, refused taps)
        # Messages that just told this person it isn't their turn, by how many versions
        # they had then: a person doesn't tap the same stale message twice.
        self.distrust: dict[int, int] = {}

    def trusts(self, message: Message) -> bool:
        return self.distrust.get(message.id) != len(message.versions)

    def look(self) -> tuple[str, Message] | None:
        """What this person would tap now: ("move", message) or ("open", message)."""
        flow = self.flow
        hand = flow.hand_of(self.id)
        if hand is not None and my_turn(hand):
            return "move", hand
        for message in flow.recent():
            if not self.trusts(message):
                continue
            if self.id in message.pinged_user_ids and "your turn" in message.content:
                if moves_on(message):
                    return "move", message
                if any(b.label == "My hand" for b in message.buttons()):
                    return "open", message
            elif message is flow.table:
                found = ACTOR.search(message.embeds[0].get("description", "")
                                     if message.embeds else "")
                if found and found[1] == self.name and moves_on(message):
                    return "move", message
        return None

    async def run(self) -> None:
        flow, fake = self.flow, self.flow.fake
        while not flow.finished:
            try:
                await fake.wait_until(lambda: flow.finished or self.look() is not None,
                                      timeout=60)
            except AssertionError:
                continue  # nothing for this person yet: keep watching
            if flow.finished:
                return
            seen = flow.now()
            await asyncio.sleep(max(seen + flow.reaction, flow.last_move + flow.pace)
                                - flow.now())
            sight = self.look()  # what the screen shows at the moment of tapping
            if sight is None or flow.finished:
                continue
            kind, message = sight
            if kind == "open":
                ix = await self._tap(message, label="My hand")
                self.spent += 1
                opened = ix.response.message
                if opened is None or not my_turn(opened):
                    self.distrust[message.id] = len(message.versions)
                    flow.note(f"{self.name} opened a hand from a stale ping")
                await asyncio.sleep(flow.reaction)
            else:
                await self._move(message)

    async def _tap(self, message: Message, *, label: str | None = None,
                   custom_id: str | None = None, value: str | None = None) -> Any:
        fake = self.flow.fake
        if value is not None:
            ix = await fake.select(self.name, message, custom_id or "", [value])
        else:
            ix = await fake.click(self.name, message, label=label, custom_id=custom_id)
        await ix.wait_response()
        return ix

    async def _move(self, message: Message) -> None:
        flow = self.flow
        choices = moves_on(message)
        takes = [c for c in choices if action_of(c[0].custom_id)[1] == "take"]
        others = [c for c in choices if c not in takes]
        if takes and (not others or flow.rng.random() < 0.15):
            control, value = takes[0]
        else:
            control, value = flow.rng.choice(others)
        version, act = action_of(control.custom_id)
        phase = "shed" if act in SHED_MOVES else "collect"
        table = flow.table
        assert table is not None
        hand_number = HAND_NUMBER.search(title(table))
        flow.last_move = flow.now()
        ix = await self._tap(message, custom_id=control.custom_id, value=value)
        response = ix.response
        refused = response.type != 7 or (is_hand(message) and "Note" in message.text()) or \
            (not is_hand(message) and await told_out_of_date(ix))
        taps = self.spent + 1
        if refused:
            self.spent = taps  # the tap bought nothing; the move is still to make
            self.distrust[message.id] = len(message.versions)
            flow.refused_taps += 1
            where = "their hand" if is_hand(message) else message.content[:30] or "the table"
            flow.note(f"{self.name} was refused on {where}")
            return
        self.spent = 0
        figures = flow.phases[phase]
        if len(choices) >= 2:
            figures.decisions += 1
            figures.decision_taps += taps
        else:
            figures.no_choice_turns += 1
            figures.no_choice_taps += taps
        if version is not None and hand_number is not None:
            flow.moves.append(Move(ix.created_at, int(hand_number[1]), version, phase))


def table_lags(flow: Flow) -> None:
    """For each tapped move: how long until the table message first showed it."""
    table = flow.table
    assert table is not None
    shown = []
    for version in table.versions:
        number = HAND_NUMBER.search(version.embeds[0].get("title", "") if version.embeds
                                    else "")
        move = MOVE_NUMBER.search(footer(version.embeds))
        if number and move:
            shown.append((version.at, int(number[1]), int(move[1])))
    for move in flow.moves:
        first = next((at for at, hand, version in shown
                      if at >= move.at and hand == move.hand and version > move.version), None)
        if first is not None:
            flow.phases[move.phase].lags.append(first - move.at)


def table_edits(flow: Flow) -> dict[str, int]:
    """The table message's edits through its channel, those that showed the move the edit
    before showed, and the gaps over 1.5 s between two of them."""
    table = flow.table
    assert table is not None
    edits = [v for v in table.versions if v.via == "channel_edit"]
    pairs = list(itertools.pairwise(edits))
    return {"channel_edits": len(edits),
            "repeated": sum(1 for a, b in pairs if MOVE_NUMBER.search(footer(b.embeds))
                            and footer(a.embeds) == footer(b.embeds)),
            "gaps_over_1_5_s": sum(1 for a, b in pairs if b.at - a.at > 1.5)}


def count_stale_pings(flow: Flow) -> int:
    return sum(1 for m in flow.fake.state.channel_messages[flow.channel]
               if not m.deleted and m.visible_to is None and "your turn" in m.content)


async def play(flow: Flow, names: list[str], ai: int, hands: int, settle: float) -> None:
    fake, host = flow.fake, names[0]
    ix = await fake.slash(host, flow.channel, "nlk", "new",
                          {"seats": len(names) + ai, "turn_timer": 0})
    await ix.wait_response()
    table = flow.table = await ix.wait_message()
    for name in names[1:]:
        await (await fake.click(name, table, label="Join")).wait_response()
    for _ in range(ai):
        await (await fake.click(host, table, label="Add AI (host)")).wait_response()
    await (await fake.click(host, table, label="Start (host)")).wait_response()
    flow.people = [Person(flow, name) for name in names]
    people = [asyncio.create_task(person.run()) for person in flow.people]
    try:
        for number in range(1, hands + 1):
            if number > 1:
                await (await fake.click(host, table, label="Next hand")).wait_response()
                flow.between_hands_taps += 1
            await fake.wait_until(lambda n=number: f"hand {n} · over" in title(table)
                                  or any(p.done() for p in people), timeout=900)
            for person in people:
                if person.done():
                    person.result()  # a person failed: say why
            await asyncio.sleep(settle)  # the last edits and deletes land
            flow.stale_pings += count_stale_pings(flow)
            if flow.progress:
                print(f"hand {number} over at {flow.now() - flow.started:.0f} s",
                      file=sys.stderr)
    finally:
        flow.finished = True
        await asyncio.gather(*people, return_exceptions=True)


async def run_playflow(people: int = 4, ai: int = 2, hands: int = 3, *, pace: float = 1.0,
                       reaction: float = 0.3, seed: int = 0, settle: float = 3.0,
                       timeout: float = 1800.0, progress: bool = False, pictures: str = "on"
                       ) -> dict[str, Any]:
    """Run the benchmark; returns the report (keys starting with ``_`` are not printed).
    ``pictures``: the server's card pictures (on, four-colour, off)."""
    if not 2 <= people + ai <= 9 or people < 1 or hands < 1:
        raise ValueError("NLK tables seat 2 to 9 players; need a person and a hand")
    failure: BaseException | None = None
    with tempfile.TemporaryDirectory(prefix="nlk-flow-") as tmp:
        folder = Path(tmp)
        async with FakeDiscord() as fake, bot_process(fake, folder):
            await set_pictures(fake, pictures)
            flow = Flow(fake, fake.add_channel("nlk-flow"), pace=pace, reaction=reaction,
                        rng=random.Random(seed))
            names = [f"person{i}" for i in range(people)]
            flow.progress = progress
            started = flow.now()
            try:
                async with asyncio.timeout(timeout):
                    await play(flow, names, ai, hands, settle)
            except (AssertionError, TimeoutError) as error:
                failure = error
            seconds = flow.now() - started
        bot_log = (folder / "bot.log").read_text(encoding="utf-8", errors="replace")
    table_lags(flow)
    return {
        "people": people, "ai": ai, "hands": hands, "pace_s": pace, "pictures": pictures,
        "phases": {name: figures.report() for name, figures in flow.phases.items()},
        # Taps that bought no move by the end (refused taps, a hand opened too late).
        "wasted_taps": sum(person.spent for person in flow.people),
        "between_hands_taps": flow.between_hands_taps,
        "stale_pings": flow.stale_pings,
        "refused_taps": flow.refused_taps,
        "table_message": table_edits(flow),
        "seconds": round(seconds, 1),
        "rate_limited": len(fake.rate_limited),
        "violations": len(fake.violations),
        "failed": failure is not None,
        "_failure": failure,
        "_violations": [str(v) for v in fake.violations],
        "_bot_log": bot_log,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.playflow", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=4)
    parser.add_argument("--ai", type=int, default=2)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--pace", type=float, default=1.0, metavar="S",
                        help="seconds between people's moves (default 1.0)")
    parser.add_argument("--reaction", type=float, default=0.3, metavar="S",
                        help="least time from seeing a turn to tapping (default 0.3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument("--pictures", choices=("on", "four-colour", "off"), default="on",
                        help="the server's card pictures (default on, as a new server has)")
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args(argv)
    report = asyncio.run(run_playflow(args.people, args.ai, args.hands, pace=args.pace,
                                      reaction=args.reaction, seed=args.seed,
                                      timeout=args.timeout, progress=True,
                                      pictures=args.pictures))
    if report["_failure"] is not None:
        print(f"the run failed: {report['_failure']!r}", file=sys.stderr)
    print_report(report, as_json=args.json)
    return 1 if report["failed"] or report["violations"] or report["rate_limited"] else 0


if __name__ == "__main__":
    sys.exit(main())
