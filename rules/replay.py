"""Reading, running and writing ``nlk-replay/1`` (RULES.md §8)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rules.actions import Action
from rules.cards import Card, check_players, parse_suit
from rules.engine import Game
from rules.errors import CardError, DealError, IllegalAction, Malformed, ReplayError
from rules.phase import Phase
from rules.variant import Variant
from rules.views import state_json

FORMAT = "nlk-replay/1"


@dataclass(frozen=True)
class Replay:
    """A start (deck and dealer, or a position) and the actions taken from it."""

    players: tuple[str, ...]
    variant: Variant
    start: dict[str, Any]
    actions: tuple[tuple[int | None, Action], ...] = field(default=())

    def new_game(self) -> Game:
        """The game at the replay's start, before any action."""
        n = len(self.players)
        if "deck" in self.start:
            return Game.from_deck(self.start["deck"], self.start["dealer"], players=n,
                                  variant=self.variant, names=self.players)
        pos = self.start["position"]
        if pos["phase"] == Phase.COLLECT:
            return Game.from_collect_position(
                [_cards(s) for s in pos["stacks"]], _cards(pos["talon"]), pos["to_act"],
                variant=self.variant, names=self.players)
        return Game.from_shed_position([_cards(h) for h in pos["hands"]],
                                       parse_suit(pos["trump"]), pos["to_act"],
                                       variant=self.variant, names=self.players)

    def run(self) -> tuple[Game, dict[str, Any]]:
        """Apply the actions in order, stopping at the first refused one (RULES.md §8)."""
        game = self.new_game()
        for index, (seat, action) in enumerate(self.actions):
            try:
                game.apply(action, seat)
            except IllegalAction as refused:
                result = state_json(game)
                result["error"] = {"index": index, "rule": refused.rule,
                                   "message": refused.message}
                return game, result
        return game, state_json(game)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "players": list(self.players),
                               "variant": self.variant.to_json()}
        out.update(self.start)
        out["actions"] = [{"seat": s, **a.to_json()} for s, a in self.actions]
        return out


def replay_of(game: Game) -> Replay:
    """The replay that rebuilds ``game``: its start and every action so far."""
    return Replay(game.names, game.variant, _parse_start(dict(game.start), len(game.names)),
                  tuple(game.actions))


def dumps(game: Game) -> str:
    """``game`` as one line of ``nlk-replay/1``."""
    return json.dumps(replay_of(game).to_json(), ensure_ascii=False)


def parse(obj: Any) -> Replay:
    """Check and read one replay object; anything malformed raises ``NLKError``."""
    if not isinstance(obj, dict):
        raise Malformed("not_object", "a replay must be a JSON object")
    if obj.get("format", FORMAT) != FORMAT:
        raise Malformed("format", f"unknown format {obj.get('format')!r}: this reads {FORMAT}")
    players = obj.get("players")
    try:
        if isinstance(players, int) and not isinstance(players, bool):
            names = tuple(f"Seat {i}" for i in range(check_players(players)))
        elif isinstance(players, list) and all(isinstance(p, str) for p in players):
            names = tuple(players)
            check_players(len(names))
        else:
            raise DealError("'players' must be a list of 2 to 9 names")
    except DealError as bad:
        raise Malformed("players", str(bad)) from None
    try:
        variant = Variant.from_json(obj.get("variant"))
    except DealError as bad:
        raise Malformed("variant", str(bad)) from None
    start = _parse_start(obj, len(names))
    raw = obj.get("actions", [])
    if not isinstance(raw, list):
        raise Malformed("actions", "'actions' must be a list")
    actions = []
    for i, a in enumerate(raw):
        try:
            action = Action.from_json(a)
        except (ReplayError, CardError) as bad:
            raise Malformed("action", f"action {i}: {bad}", index=i) from None
        seat = a.get("seat")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise Malformed("seat", f"action {i}: 'seat' must be a seat number, not {seat!r}",
                            index=i)
        actions.append((seat, action))
    replay = Replay(names, variant, start, tuple(actions))
    try:
        replay.new_game()  # a bad deck or position is malformed input, not a refused action
    except (DealError, CardError) as bad:
        raise Malformed("deal", str(bad)) from None
    return replay


def _parse_start(obj: dict[str, Any], n: int) -> dict[str, Any]:
    if "position" in obj:
        pos = obj["position"]
        if not isinstance(pos, dict) or pos.get("phase") not in (Phase.COLLECT, Phase.SHED):
            raise Malformed("position",
                            "'position' must be an object whose phase is collect or shed")
        piles = "stacks" if pos["phase"] == Phase.COLLECT else "hands"
        lists = pos.get(piles)
        if not isinstance(lists, list) or len(lists) != n or not all(
                isinstance(x, list) for x in lists):
            raise Malformed("position", f"position '{piles}' must be a list of {n} lists of cards")
        out: dict[str, Any] = {"phase": pos["phase"], piles: [_texts(x) for x in lists],
                               "to_act": pos.get("to_act")}
        if pos["phase"] == Phase.COLLECT:
            if not isinstance(pos.get("talon"), list):
                raise Malformed("position", "a collect position needs a 'talon' list, top first")
            out["talon"] = _texts(pos["talon"])
        else:
            out["trump"] = "SHDC"[parse_suit(pos.get("trump"))]
        return {"position": out}
    if "deck" not in obj or "dealer" not in obj:
        raise Malformed("start", "a replay needs 'dealer' and 'deck', or a 'position'")
    if not isinstance(obj["deck"], list):
        raise Malformed("deck", "'deck' must be a list of cards, top first")
    return {"dealer": obj["dealer"], "deck": _texts(obj["deck"])}


def _texts(items: list[Any]) -> list[str]:
    """Cards checked and written the engine's way (upper case, ``T`` for ten)."""
    return [str(Card.parse(c)) for c in items]


def _cards(items: list[str]) -> list[Card]:
    return [Card.parse(c) for c in items]


@dataclass(frozen=True)
class Record:
    """One object of an input file: a replay, or why it could not be read."""

    line: int
    replay: Replay | None = None
    problem: str | None = None  # in English, for the developers' tools
    why: str | None = None  # which check failed (``Malformed.why``), for a reader's own words
    details: dict[str, int] = field(default_factory=dict)  # where: line, column, index


def read_records(text: str) -> Iterator[Record]:
    """One object, a JSON array of them, or JSON Lines (one object per line)."""
    if not text.strip():
        yield Record(1, problem="the input holds no replay", why="empty")
        return
    whole_error: json.JSONDecodeError | None = None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as error:
        whole_error = error
    if whole_error is None:
        for obj in whole if isinstance(whole, list) else [whole]:
            yield _record(1, obj)
        return
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip()]
    try:
        json.loads(lines[0][1])
    except json.JSONDecodeError:
        # Not JSON Lines either: report the whole-text error, which points at the real spot.
        yield Record(1, problem=f"bad JSON: {whole_error}", why="json",
                     details={"line": whole_error.lineno, "column": whole_error.colno})
        return
    for number, line in lines:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            yield Record(number, problem=f"bad JSON: {error.msg} at column {error.colno}",
                         why="json", details={"line": number, "column": error.colno})
        else:
            yield _record(number, obj)


def _record(line: int, obj: Any) -> Record:
    try:
        return Record(line, replay=parse(obj))
    except Malformed as bad:
        return Record(line, problem=str(bad), why=bad.why, details=bad.details)
    except (ReplayError, DealError, CardError) as bad:
        return Record(line, problem=str(bad), why="deal")
