"""``python -m rules play``: play a hand in the terminal against AI players.

You take one seat; the table, your cards and your legal actions are shown whenever it is
your turn, and you answer with an action's number or its text (``give 9D 1``, ``play KS``,
``take``…). Everything the AI players do is announced as it happens.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
from collections.abc import Callable
from typing import TextIO

from .actions import Action
from .ai import LEVELS, choose
from .cards import Card, check_players, show
from .cli import add_deal_arguments, variant_of
from .engine import Game
from .errors import IllegalAction, InputError, NLKError
from .phase import Phase
from .variant import Variant
from .views import SeatView, observe

QUIT = ("q", "quit", "exit")
EXIT_INTERRUPTED = 130  # what shells report for a program stopped by Ctrl-C (128 + SIGINT)

HOW_TO_PLAY = """\
How to play: the last player holding cards loses.
  Collect phase: give your stack's top card, or the card you drew, to another stack where it
  fits (one rank higher; the lowest rank fits on an Ace), or keep the drawn card: turn over.
  Shed phase: stacks become hidden hands. Beat the trick's top card (higher in its suit, or
  a trump) or take the trick's bottom card; get rid of all your cards to be safe.
  Type an action's number or the action: draw, keep, take, give 9D 1, play KS.
  Cards are rank then suit (S H D C): TD is 10♦, QS is Q♠. Type q to leave."""


_VERBS = {"deal": ("is dealt", "are dealt"), "draw": ("draws", "draw"),
          "give": ("gives", "give"), "keep": ("keeps", "keep"), "play": ("plays", "play"),
          "take": ("takes", "take")}


def describe(event: tuple[int, str, Card, int | None], names: tuple[str, ...],
             you: int | None = None) -> str:
    """One line for a public event (an ``Event``); ``you`` is addressed as "You"."""
    seat, act, card, to = event
    verb = _VERBS[act][seat == you]
    who = "You" if seat == you else names[seat]
    line = f"{who} {verb} {card.display}"
    if to is not None:
        line += " to " + ("you" if to == you else names[to])
    return line


def describe_action(action: Action, view: SeatView) -> str:
    """An action in words, for the list of choices."""
    if action.act == "give":
        assert action.card is not None and action.to is not None
        return f"give {action.card.display} to {view.name(action.to)}"
    if action.act == "play":
        assert action.card is not None
        return f"play {action.card.display}"
    if action.act == "take":
        return f"take {view.trick[0][1].display}"
    if action.act == "keep":
        assert view.drawn is not None
        return f"keep {view.drawn.display}"
    return "draw"


def table(view: SeatView) -> str:
    """The public table and the seat's own cards, as text."""
    me = view.seat
    lines = []
    if view.phase == Phase.COLLECT:
        lines.append(f"Collect phase — talon: {view.talon} card(s).")
    else:
        trick = " → ".join(f"{c.display} ({view.name(s)})" for s, c in view.trick)
        lines.append(f"Shed phase — trumps: {_suit(view.trump)}.")
        lines.append(f"Trick ({len(view.trick)} of {view.trick_size} cards): {trick}"
                     if view.trick else "The trick is empty.")
    for s in range(view.n):
        mark = " (you)" if s == me and view.name(s) != "You" else ""
        state = "out" if s in view.out else f"{view.counts[s]} card(s)"
        top = view.tops[s]
        extra = f", top {top.display}" if view.phase == Phase.COLLECT and top is not None else ""
        lines.append(f"  {view.name(s)}{mark}: {state}{extra}")
    label = "Your stack (bottom → top)" if view.phase == Phase.COLLECT else "Your hand"
    lines.append(f"{label}: {show(view.own) or '(empty)'}")
    if view.drawn is not None:
        lines.append(f"Drawn card: {view.drawn.display}")
    return "\n".join(lines)


def _suit(letter: str | None) -> str:
    return {"S": "♠ spades", "H": "♥ hearts", "D": "♦ diamonds", "C": "♣ clubs"}.get(
        letter or "", "none")


def read_choice(text: str, view: SeatView) -> Action:
    """The action a player typed: a number from the list, an action, or just a card to play.

    Raises ``InputError`` with a reason the player can act on.
    """
    t = text.strip()
    legal = view.legal
    if t.isdigit():
        i = int(t)
        if 1 <= i <= len(legal):
            return legal[i - 1]
        raise InputError(f"choose a number from 1 to {len(legal)}")
    try:
        if len(t.split()) == 1 and t.lower() not in ("draw", "keep", "take"):
            try:
                card = Card.parse(t)
            except NLKError:
                raise InputError(f"{t!r} is neither a number from the list nor an action "
                                 "(like 'draw', 'give 9D 1', 'keep', 'play KS', 'take')"
                                 ) from None
            return _card_only(card, view)
        return Action.parse(t)
    except NLKError as error:
        raise InputError(error.message if isinstance(error, IllegalAction) else str(error)
                         ) from None


def _card_only(card: Card, view: SeatView) -> Action:
    """A bare card: play it, or in phase one give it where it fits if that place is unique."""
    if view.phase != Phase.COLLECT:
        return Action.play(card)
    places = [a.to for a in view.legal if a.act == "give" and a.card == card]
    if len(places) == 1 and places[0] is not None:
        return Action.give(card, places[0])
    if places:
        raise InputError(f"{card.display} fits on more than one stack: say which, like "
                         f"'give {card} {places[0]}'")
    raise InputError(f"{card.display} fits on no other stack now")


class _Narrator:
    """Prints what happened since it last looked: events, the phase change, players out."""

    def __init__(self, game: Game, you: int, out: TextIO) -> None:
        self.game, self.you, self.out = game, you, out
        self.events = 0
        self.players_out = 0
        self.phase = game.phase

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def catch_up(self) -> None:
        game = self.game
        names = game.names
        new = game.events[self.events:]
        for event in new:
            self.say(describe(event, names, self.you))
        self.events = len(game.events)
        if new and new[-1][1] == "play" and not game.trick and not game.is_over:
            self.say("   The trick is full and set aside.")
        if self.phase == Phase.COLLECT and game.phase != Phase.COLLECT and game.trump is not None:
            self.phase = game.phase
            self.say(f"-- The talon is empty: trumps are {_suit('SHDC'[game.trump])}. "
                     "Stacks become hidden hands; get rid of yours. --")
        for s in game.out[self.players_out:]:
            self.say("You are out: safe!" if s == self.you else f"{names[s]} is out.")
        self.players_out = len(game.out)


def play_hand(players: int, seat: int, level: str, seed: str, budget_ms: int | None,
              variant: Variant, ask: Callable[[str], str], out: TextIO) -> int:
    """Play one hand; returns 0 when it ends, 1 when the player quits or input runs out."""
    names = tuple("You" if s == seat else f"AI {s}" for s in range(players))
    game = Game.deal(players, random.Random(seed), variant=variant, names=names)
    print(HOW_TO_PLAY + "\n", file=out)
    print(f"NLK, {players} players; {variant.describe()}.", file=out)
    print(f"{names[game.dealer or 0]} dealt. AI players: {level}.", file=out)
    narrator = _Narrator(game, seat, out)
    while not game.is_over:
        narrator.catch_up()
        s = game.to_act
        assert s is not None
        view = observe(game, s)
        if s != seat:
            game.apply(choose(view, level, seed=f"{seed}:{s}", budget_ms=budget_ms), s)
            continue
        if len(view.legal) == 1:
            game.apply(view.legal[0], s)  # nothing to decide: the event line says what
            continue
        print("\n" + table(view), file=out)
        for i, action in enumerate(view.legal, 1):
            print(f"  {i}. {describe_action(action, view)}   [{action}]", file=out)
        while True:
            try:
                text = ask("Your move (number or action, q to quit): ")
            except EOFError:
                print("\nNo more input: the hand is left unfinished.", file=out)
                return 1
            if text.strip().lower() in QUIT:
                print("You left the table.", file=out)
                return 1
            try:
                game.apply(read_choice(text, view), seat)
                break
            except ValueError as error:  # InputError and IllegalAction are ValueErrors too
                reason = getattr(error, "message", None) or str(error)
                print(f"Not possible: {reason} Try again.", file=out)
    narrator.catch_up()
    outcome = game.outcome()
    assert outcome is not None
    # Said once: whether you were safe was announced when you went out.
    loser = "You lost" if outcome.loser == seat else f"{names[outcome.loser]} lost"
    order = ", ".join(names[s] for s in outcome.order[:-1])
    print(f"\nThe hand is over. Out in order: {order}. {loser} this hand.", file=out)
    return 0


def discard_typeahead(stream: TextIO | None) -> None:
    """Drop keys pressed while the AI players were thinking, so they can't answer a prompt
    nobody has read yet. Only a terminal holds such input: pipes, files and systems without
    ``termios`` are left alone."""
    with contextlib.suppress(ImportError, OSError, ValueError):  # ValueError: a closed file
        if stream is None or not stream.isatty():
            return
        import termios

        with contextlib.suppress(termios.error):
            termios.tcflush(stream, termios.TCIFLUSH)


def ask_terminal(prompt: str) -> str:
    """``input``, after discarding whatever was typed before the prompt appeared."""
    discard_typeahead(sys.stdin)
    return input(prompt)


def add_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("play", help="play a hand in the terminal against AI players")
    add_deal_arguments(p, seed=None, seed_help="repeat a hand: the same seed, the same deal")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 to players-1")
    p.add_argument("--level", choices=LEVELS, default="strong", help="the AI players' level")
    p.add_argument("--budget-ms", type=int, default=300,
                   help="the strong AI's thinking time per decision")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    players = check_players(args.players)
    if not 0 <= args.seat < players:
        print(f"error: --seat must be from 0 to {players - 1}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else str(random.SystemRandom().getrandbits(32))
    if args.seed is None:
        print(f"(seed {seed})")
    try:
        return play_hand(players, args.seat, args.level, seed, args.budget_ms,
                         variant_of(args), ask_terminal, sys.stdout)
    except KeyboardInterrupt:
        print("\nInterrupted: the hand is left unfinished.", flush=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the output was piped into something that stopped reading
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more may reach the pipe
        return 1
