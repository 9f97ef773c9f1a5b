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
from collections.abc import Callable, Iterable
from typing import TextIO

from rules.actions import Action
from rules.ai import LEVELS, choose
from rules.cards import Card, check_players
from rules.cli import add_deal_arguments, variant_of
from rules.engine import Game
from rules.errors import CardError, IllegalAction, InputError, NLKError
from rules.explain import explain
from rules.i18n import (
    DEFAULT,
    Lang,
    card_text,
    cards_text,
    from_environment,
    level_name,
    normalise,
    quote,
    suit_name,
    translator,
    variant_text,
)
from rules.phase import Phase
from rules.variant import Variant
from rules.views import SeatView, observe

QUIT = ("q", "quit", "exit")
EXIT_INTERRUPTED = 130  # what shells report for a program stopped by Ctrl-C (128 + SIGINT)


def N_(message: str) -> str:
    """Marks a msgid for extraction where it is translated later, at use."""
    return message


# What a player types stays the rule book's notation in every language (draw, give 9D 1,
# play KS): only what the terminal prints is translated.
HOW_TO_PLAY = N_("""\
How to play: the last player holding cards loses.
  Collect phase: give your stack's top card, or the card you drew, to another stack where it
  fits (one rank higher; the lowest rank fits on an Ace), or keep the drawn card: turn over.
  Shed phase: stacks become hidden hands. Beat the trick's top card (higher in its suit, or
  a trump) or take the trick's bottom card; get rid of all your cards to be safe.
  Type an action's number or the action: draw, keep, take, give 9D 1, play KS.
  Cards are rank then suit (S H D C): TD is 10♦, QS is Q♠. Type q to leave.""")


class Words:
    """Everything the terminal game says, in one language."""

    def __init__(self, lang: object = DEFAULT) -> None:
        self.lang = normalise(lang)
        t = translator(self.lang)
        self._, self.n_ = t.gettext, t.ngettext

    def card(self, card: Card) -> str:
        return card_text(card, self.lang)

    def cards(self, cards: tuple[Card, ...]) -> str:
        return cards_text(cards, self.lang)

    def suit(self, letter: str | None) -> str:
        return suit_name(letter, self.lang)


def describe(event: tuple[int, str, Card, int | None], names: tuple[str, ...],
             you: int | None = None, words: Words | None = None) -> str:
    """One line for a public event (an ``Event``); ``you`` is addressed as "You"."""
    w = words or Words()
    _ = w._
    seat, act, card, to = event
    c = w.card(card)
    if act == "give" and to is not None:
        if seat == you:
            return _("You give {card} to {name}").format(card=c, name=names[to])
        if to == you:
            return _("{name} gives {card} to you").format(card=c, name=names[seat])
        return _("{name} gives {card} to {to}").format(card=c, name=names[seat], to=names[to])
    if seat == you:
        line = {"deal": _("You are dealt {card}"), "draw": _("You draw {card}"),
                "keep": _("You keep {card}"), "play": _("You play {card}"),
                "take": _("You take {card}")}[act]
    else:
        line = {"deal": _("{name} is dealt {card}"), "draw": _("{name} draws {card}"),
                "keep": _("{name} keeps {card}"), "play": _("{name} plays {card}"),
                "take": _("{name} takes {card}")}[act]
    return line.format(card=c, name=names[seat])


def describe_action(action: Action, view: SeatView, words: Words | None = None) -> str:
    """An action in words, for the list of choices."""
    w = words or Words()
    _ = w._
    if action.act == "give":
        assert action.card is not None and action.to is not None
        return _("give {card} to {name}").format(card=w.card(action.card),
                                                 name=view.name(action.to))
    if action.act == "play":
        assert action.card is not None
        return _("play {card}").format(card=w.card(action.card))
    if action.act == "take":
        return _("take {card}").format(card=w.card(view.trick[0][1]))
    if action.act == "keep":
        assert view.drawn is not None
        return _("keep {card}").format(card=w.card(view.drawn))
    return _("draw")


def table(view: SeatView, words: Words | None = None) -> str:
    """The public table and the seat's own cards, as text."""
    w = words or Words()
    _, n_ = w._, w.n_
    me = view.seat
    lines = []
    if view.phase == Phase.COLLECT:
        lines.append(n_("Collect phase — talon: {count} card.",
                        "Collect phase — talon: {count} cards.", view.talon
                        ).format(count=view.talon))
    else:
        trick = " → ".join(f"{w.card(c)} ({view.name(s)})" for s, c in view.trick)
        lines.append(_("Shed phase — trumps: {suit}.").format(suit=w.suit(view.trump)))
        lines.append(n_("Trick ({count} of {size} card): {trick}",
                        "Trick ({count} of {size} cards): {trick}", view.trick_size or 0
                        ).format(count=len(view.trick), size=view.trick_size, trick=trick)
                     if view.trick else _("The trick is empty."))
    you = _("You")
    for s in range(view.n):
        name = view.name(s)
        if s in view.out:
            state = _("out")
        else:
            state = n_("{count} card", "{count} cards", view.counts[s]).format(
                count=view.counts[s])
        top = view.tops[s]
        if view.phase == Phase.COLLECT and top is not None:
            state = _("{cards}, top {card}").format(cards=state, card=w.card(top))
        if s == me and name != you:
            lines.append(_("  {name} (you): {state}").format(name=name, state=state))
        else:
            lines.append(_("  {name}: {state}").format(name=name, state=state))
    own = w.cards(view.own) or _("(empty)")
    lines.append(_("Your stack (bottom → top): {cards}").format(cards=own)
                 if view.phase == Phase.COLLECT else _("Your hand: {cards}").format(cards=own))
    if view.drawn is not None:
        lines.append(_("Drawn card: {card}").format(card=w.card(view.drawn)))
    return "\n".join(lines)


def read_choice(text: str, view: SeatView, words: Words | None = None) -> Action:
    """The action a player typed: a number from the list, an action, or just a card to play.

    Raises ``InputError`` with a reason the player can act on.
    """
    w = words or Words()
    _ = w._
    t = text.strip()
    legal = view.legal
    if t.isdigit():
        i = int(t)
        if 1 <= i <= len(legal):
            return legal[i - 1]
        raise InputError(_("choose a number from 1 to {count}").format(count=len(legal)))
    try:
        if len(t.split()) == 1 and t.lower() not in ("draw", "keep", "take"):
            try:
                card = Card.parse(t)
            except NLKError:
                raise InputError(_("{text} is neither a number from the list nor an action "
                                   "(like “draw”, “give 9D 1”, “keep”, “play KS”, “take”)"
                                   ).format(text=quote(t, w.lang))) from None
            return _card_only(card, view, words)
        return Action.parse(t)
    except InputError:
        raise
    except CardError:  # "give QQ 1": the action is right, its card is not
        raise InputError(_("{text} is not a card: write a rank then a suit (S H D C), like "
                           "TD or 9S (R1.3)").format(text=quote(t.split()[1], w.lang))) from None
    except NLKError:  # the engine's English stays for replays; the player reads their own
        raise InputError(_("{text} is neither a number from the list nor an action "
                           "(like “draw”, “give 9D 1”, “keep”, “play KS”, “take”)"
                           ).format(text=quote(t, w.lang))) from None


def _card_only(card: Card, view: SeatView, words: Words | None = None) -> Action:
    """A bare card: play it, or in phase one give it where it fits if that place is unique."""
    w = words or Words()
    if view.phase != Phase.COLLECT:
        return Action.play(card)
    places = [a.to for a in view.legal if a.act == "give" and a.card == card]
    if len(places) == 1 and places[0] is not None:
        return Action.give(card, places[0])
    if places:
        example = " ".join(("give", str(card), str(places[0])))  # typed notation, untranslated
        raise InputError(w._("{card} fits on more than one stack: say which, like {example}"
                             ).format(card=w.card(card), example=quote(example, w.lang)))
    raise InputError(w._("{card} fits on no other stack now").format(card=w.card(card)))


class _Narrator:
    """Prints what happened since it last looked: events, the phase change, players out."""

    def __init__(self, game: Game, you: int, out: TextIO, words: Words | None = None) -> None:
        self.game, self.you, self.out = game, you, out
        self.words = words or Words()
        self.events = 0
        self.players_out = 0
        self.phase = game.phase

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def catch_up(self) -> None:
        game, w = self.game, self.words
        _ = w._
        names = game.names
        new = game.events[self.events:]
        for event in new:
            self.say(describe(event, names, self.you, w))
        self.events = len(game.events)
        if new and new[-1][1] == "play" and not game.trick and not game.is_over:
            self.say("   " + _("The trick is full and set aside."))
        if self.phase == Phase.COLLECT and game.phase != Phase.COLLECT and game.trump is not None:
            self.phase = game.phase
            self.say(_("-- The talon is empty: trumps are {suit}. Stacks become hidden hands; "
                       "get rid of yours. --").format(suit=w.suit("SHDC"[game.trump])))
        for s in game.out[self.players_out:]:
            self.say(_("You are out: safe!") if s == self.you
                     else _("{name} is out.").format(name=names[s]))
        self.players_out = len(game.out)


def play_hand(players: int, seat: int, level: str, seed: str, budget_ms: int | None,
              variant: Variant, ask: Callable[[str], str], out: TextIO,
              lang: object = DEFAULT) -> int:
    """Play one hand; returns 0 when it ends, 1 when the player quits or input runs out."""
    w = Words(lang)
    _, n_ = w._, w.n_
    names = tuple(_("You") if s == seat else _("AI {seat}").format(seat=s)
                  for s in range(players))
    game = Game.deal(players, random.Random(seed), variant=variant, names=names)
    print(_(HOW_TO_PLAY) + "\n", file=out)
    rules = variant_text(variant.last_card, variant.must_beat_in_suit, w.lang)
    print(n_("NLK, {count} player; {rules}.", "NLK, {count} players; {rules}.", players
             ).format(count=players, rules=rules), file=out)
    dealer = game.dealer or 0
    dealt = _("You dealt. AI players: {level}.") if dealer == seat \
        else _("{name} dealt. AI players: {level}.")
    print(dealt.format(name=names[dealer], level=level_name(level, w.lang)), file=out)
    narrator = _Narrator(game, seat, out, w)
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
        print("\n" + table(view, w), file=out)
        for i, action in enumerate(view.legal, 1):
            print(f"  {i}. {describe_action(action, view, w)}   [{action}]", file=out)
        while True:
            try:
                text = ask(_("Your move (number or action, q to quit): "))
            except EOFError:
                print("\n" + _("No more input: the hand is left unfinished."), file=out)
                return 1
            if text.strip().lower() in QUIT:
                print(_("You left the table."), file=out)
                return 1
            try:
                game.apply(read_choice(text, view, w), seat)
                break
            except IllegalAction as error:  # the rule's sentence in the player's language
                reason = explain(error, w.lang)
            except InputError as error:  # read_choice's own words, already translated
                reason = str(error)
            # Every reason ends without a full stop: the rule number, or a read_choice phrase.
            print(_("Not possible: {reason}. Try again.").format(reason=reason), file=out)
    narrator.catch_up()
    outcome = game.outcome()
    assert outcome is not None
    # Said once: whether you were safe was announced when you went out.
    order = ", ".join(names[s] for s in outcome.order[:-1])
    if outcome.loser == seat:
        end = _("The hand is over. Out in order: {order}. You lost this hand.")
    else:
        end = _("The hand is over. Out in order: {order}. {name} lost this hand.")
    print("\n" + end.format(order=order, name=names[outcome.loser]), file=out)
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
    # The help is in the environment's language: --lang is not read yet when it is built.
    _ = translator(from_environment()).gettext
    usage = _("usage: ")

    class Formatter(argparse.HelpFormatter):
        """argparse's own frame ("usage:") in the player's language too."""

        def add_usage(self, usage_text: str | None, actions: Iterable[argparse.Action],
                      groups: Iterable[argparse._MutuallyExclusiveGroup],
                      prefix: str | None = None) -> None:
            super().add_usage(usage_text, actions, groups, usage if prefix is None else prefix)

    p = subparsers.add_parser("play", help=_("play a hand in the terminal against AI players"),
                              formatter_class=Formatter, add_help=False)
    p._optionals.title = _("options")
    p.add_argument("-h", "--help", action="help", help=_("show this help and leave"))
    add_deal_arguments(p, seed=None,
                       seed_help=_("repeat a hand: the same seed, the same deal"), words=_)
    p.add_argument("--seat", type=int, default=0, help=_("your seat, 0 to players-1"))
    p.add_argument("--level", choices=LEVELS, default="strong",
                   help=_("the AI players' level: random, heuristic (standard) or strong"))
    p.add_argument("--budget-ms", type=int, default=300,
                   help=_("the strong AI's thinking time per decision"))
    p.add_argument("--lang", type=normalise, choices=list(Lang), default=from_environment(),
                   help=_("the language to play in: en, hu or fr (default: the "
                          "environment's locale)"))
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    _ = translator(args.lang).gettext
    players = check_players(args.players)
    if not 0 <= args.seat < players:
        print(_("error: --seat must be from 0 to {last}").format(last=players - 1),
              file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else str(random.SystemRandom().getrandbits(32))
    if args.seed is None:
        print(_("(seed {seed})").format(seed=seed))
    try:
        return play_hand(players, args.seat, args.level, seed, args.budget_ms,
                         variant_of(args), ask_terminal, sys.stdout, args.lang)
    except KeyboardInterrupt:
        print("\n" + _("Interrupted: the hand is left unfinished."), flush=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the output was piped into something that stopped reading
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more may reach the pipe
        return 1
