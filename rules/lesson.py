"""The guided first hand (``/nlk learn``): a fixed deal against two AI seats, replayed
through the engine, with a coach who names the move wanted and the rule behind it.

The lesson is a script: a collect position (RULES.md §8) and every action of the hand, each
checked by the engine as it is applied, so the rules stay the engine's. The learner sits in
seat 0. A *step* is one of the learner's taps; between two steps the AI seats move, and the
learner's moves that leave no choice play themselves, each told in words with its rule.
A tap that is not the step's move is never played: the engine's refusal, or the coach, says
why, and the learner tries again.

>>> first = situation(0)
>>> first.coach.rules, [str(a) for a in first.options]
(('R3.3',), ['draw'])
>>> judge(0, Action.parse("draw")).right
True
>>> judge(6, Action.parse("play AH")).rule
'R4.2'
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.actions import TAKE, Act, Action
from rules.cards import Card
from rules.engine import Game
from rules.errors import IllegalAction
from rules.explain import explain
from rules.i18n import DEFAULT, N_, translator
from rules.phase import Phase
from rules.play import Words, describe

LESSON = "1"  # the deal's name in custom ids and in stored progress
LEARNER = 0
AI_NAMES = ("Eszter", "Bence")
STACKS = (("TH",), ("QS",), ("KD",))  # bottom → top, seat by seat
TALON = ("KS", "AH", "8C", "QH", "9C", "8H", "JD")  # top first


@dataclass(frozen=True)
class Coach:
    """What the coach says about one move: the sentence (a msgid, its placeholders filled
    from ``cards``) and the rules it names."""

    text: str
    rules: tuple[str, ...]
    cards: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Line:
    """One action of the hand; ``coach`` for the learner's taps and for the moves told with
    a reason."""

    seat: int
    action: Action
    coach: Coach | None = None
    tap: bool = False


def _line(seat: int, action: str, coach: Coach | None = None, *, tap: bool = False) -> Line:
    return Line(seat, Action.parse(action), coach, tap)


# The whole hand. ``{button}`` is the label of the button the coach wants tapped.
SCRIPT: tuple[Line, ...] = (
    _line(0, "draw", Coach(N_(
        "You play first. A turn always includes a draw: you turn up the top card of the talon "
        "(R3.3). Nothing of yours fits anywhere yet, so tap {button}."), ("R3.3",)), tap=True),
    _line(0, "give KS 1", Coach(N_(
        "You drew {card}. A card fits on a stack when it is exactly one rank higher than its "
        "top card (R3.2): {card} fits on Eszter's {top}. Cards you give away are cards you "
        "won't have to shed later. Tap {button}."), ("R3.2",),
        (("card", "KS"), ("top", "QS"))), tap=True),
    _line(0, "draw", Coach(N_(
        "After giving a drawn card you must draw again (R3.3). With no choice, the draw "
        "played itself, as moves with no choice do at a real table."), ("R3.3",))),
    _line(0, "keep", Coach(N_(
        "{card} fits on Eszter's {top}, but nobody is ever obliged to give (R3.3). Aces are "
        "the strongest cards in the shed phase, so keep it: tap {button}. Keeping ends your "
        "turn."), ("R3.3",), (("card", "AH"), ("top", "KS"))), tap=True),
    _line(1, "draw"),
    _line(1, "give 8C 0", Coach(N_(
        "The lowest rank fits on an Ace (R3.2): Eszter put {card} on your {top}."),
        ("R3.2",), (("card", "8C"), ("top", "AH")))),
    _line(1, "draw"),
    _line(1, "keep", Coach(N_(
        "{card} fit nowhere, so Eszter had to keep it (R3.3)."), ("R3.3",),
        (("card", "QH"),))),
    _line(2, "give KD 1", Coach(N_(
        "Before drawing, a player may give the top card of their own stack where it fits "
        "(R3.3): Bence gave his {card} to Eszter."), ("R3.3",), (("card", "KD"),))),
    _line(2, "draw"),
    _line(2, "give 9C 0"),
    _line(2, "draw"),
    _line(2, "keep"),
    _line(0, "give 9C 2", Coach(N_(
        "Your turn again. Before you draw, the top card of your own stack may be given too "
        "(R3.3): your {card} fits on Bence's {top}. Tap {button}."), ("R3.3",),
        (("card", "9C"), ("top", "8H"))), tap=True),
    _line(0, "draw", Coach(N_(
        "Nothing else could move, so your draw played itself. It was the last talon card, "
        "{card}: whoever draws it keeps it, its suit is trump for the shed phase, and they "
        "lead first (R3.4)."), ("R3.4",), (("card", "JD"),))),
    _line(0, "play 8C", Coach(N_(
        "The shed phase: your stack is now your hand, hidden from the others, and the last "
        "player holding cards loses (R4.1); this lesson shows every hand, so you can follow. "
        "You lead: any card will do (R4.4). Start with a "
        "low one you don't mind losing: tap {button}."), ("R4.1", "R4.4")), tap=True),
    _line(1, "take", Coach(N_(
        "Eszter had no higher club. She could have trumped, but she took {card}, the "
        "trick's bottom card: taking is always allowed, and it is what you do when you can't "
        "beat (R4.5). The trick was empty, so the next player leads (R4.7)."),
        ("R4.5", "R4.7"), (("card", "8C"),))),
    _line(2, "play 8H"),
    _line(0, "play TH", Coach(N_(
        "To beat a card, play a higher card of its suit, or a trump (R4.2). Beat {top} in "
        "suit: tap {button}."), ("R4.2",), (("top", "8H"),)), tap=True),
    _line(1, "play QH", Coach(N_(
        "Eszter beat it with a higher heart. The trick now holds as many cards as players, "
        "so it is full and set aside; Eszter completed it, so she leads (R4.6)."),
        ("R4.2", "R4.6"))),
    _line(1, "play 8C"),
    _line(2, "play 9C", Coach(N_(
        "Bence beat {top} with {card}, his last card: he is out and safe (R4.8)."),
        ("R4.8",), (("top", "8C"), ("card", "9C")))),
    _line(0, "play JD", Coach(N_(
        "You have no club, but a trump beats any card that is not a trump (R4.2). Trump it: "
        "tap {button}."), ("R4.2",)), tap=True),
    _line(0, "play AH", Coach(N_(
        "You filled the trick, so you lead again (R4.6). Play your last card and you are out "
        "(R4.8): tap {button}."), ("R4.6", "R4.8")), tap=True),
)
THE_END = Coach(N_(
    "You are out! Only Eszter still holds cards, so the hand is over and she loses (R4.9); "
    "she deals the next hand (R5.1)."), ("R4.9", "R5.1"))

TAPS: tuple[int, ...] = tuple(i for i, line in enumerate(SCRIPT) if line.tap)
STEPS = len(TAPS)  # step ``STEPS`` is the finished hand
SHED = next(s for s, i in enumerate(TAPS) if SCRIPT[i].action.act == Act.PLAY)

CHAPTERS = (N_("Collect"), N_("Shed"))


def new_game(names: tuple[str, ...] | None = None) -> Game:
    """The lesson's deal: the learner's stack first, then Eszter's and Bence's."""
    return Game.from_collect_position(
        [[Card.parse(c) for c in stack] for stack in STACKS],
        [Card.parse(c) for c in TALON], LEARNER,
        names=names or ("You", *AI_NAMES))


@dataclass(frozen=True)
class Told:
    """A move made between two taps: its public events, and the coach's reason if any."""

    seat: int
    events: tuple[tuple[int, str, Card, int | None], ...]
    coach: Coach | None


@dataclass(frozen=True)
class Situation:
    """The hand at a step: the game, what happened since the last tap, the coach's line
    about the move wanted (or the end), and the moves offered as buttons."""

    step: int
    game: Game
    told: tuple[Told, ...]
    coach: Coach
    wanted: Action | None
    options: tuple[Action, ...]

    @property
    def chapter(self) -> int:
        return 0 if self.step < SHED else 1

    @property
    def finished(self) -> bool:
        return self.step >= STEPS

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule number the coach names at this step, in order."""
        found = [r for t in self.told if t.coach for r in t.coach.rules]
        return (*found, *self.coach.rules)


def _apply(game: Game, line: Line) -> Told:
    before = len(game.events)
    game.apply(line.action, line.seat)  # the engine checks every scripted move
    return Told(line.seat, tuple(game.events[before:]), line.coach)


def situation(step: int, names: tuple[str, ...] | None = None) -> Situation:
    """The hand just before the learner's tap number ``step`` (``STEPS``: the hand over)."""
    step = min(max(step, 0), STEPS)
    game = new_game(names)
    start = TAPS[step - 1] if step > 0 else -1
    end = TAPS[step] if step < STEPS else len(SCRIPT)
    told: list[Told] = []
    for index, line in enumerate(SCRIPT[:end]):
        told_now = _apply(game, line)
        if index >= start:  # the learner's own tap: its events, not its coach again
            told.append(told_now if not line.tap else Told(told_now.seat, told_now.events,
                                                           None))
    if step >= STEPS:
        return Situation(step, game, tuple(told), THE_END, None, ())
    line = SCRIPT[end]
    assert line.coach is not None
    return Situation(step, game, tuple(told), line.coach, line.action, options(game))


def options(game: Game) -> tuple[Action, ...]:
    """The buttons: every legal move in the collect phase; in the shed phase every card in
    hand (a card that does not beat is explained, never played) and **Take** when the trick
    holds a card."""
    if game.phase is not Phase.SHED or game.to_act is None:
        return tuple(game.legal_actions())
    hand = game.stacks[game.to_act]
    plays = tuple(Action.play(c) for c in sorted(hand))
    return (*plays, TAKE) if game.trick else plays


@dataclass(frozen=True)
class Verdict:
    """What a tap gets: ``right`` moves on; otherwise ``rule`` and ``why`` (a msgid for the
    coach's reason, or the engine's refusal in words)."""

    right: bool
    rule: str | None = None
    refusal: IllegalAction | None = None


def judge(step: int, action: Action) -> Verdict:
    """Whether ``action`` is the move wanted at ``step``; if not, why (nothing is played)."""
    here = situation(step)
    if here.wanted is None:
        return Verdict(False, None)
    if action == here.wanted:
        return Verdict(True)
    refused = here.game.check(action, LEARNER)
    if refused is not None:
        return Verdict(False, refused.rule, refused)
    return Verdict(False, here.coach.rules[0])


# --- in words ------------------------------------------------------------------------------

ALLOWED = N_("That move is allowed at a real table, but it is not the one this step is "
             "about, so it was not played. Try the move the coach names below.")
REFUSED = N_("That move isn't allowed: {why}. Try again.")


def coach_words(coach: Coach, lang: object = DEFAULT, button: str = "",
                names: tuple[str, ...] | None = None) -> str:
    """The coach's sentence in ``lang``, its cards written as the player reads them."""
    words = Words(lang)
    values = {key: words.card(Card.parse(card)) for key, card in coach.cards}
    return translator(lang).gettext(coach.text).format(button=f"**{button}**", **values)


def told_words(told: Told, names: tuple[str, ...], lang: object = DEFAULT) -> list[str]:
    """A move made between taps in words: what happened, then the coach's reason."""
    words = Words(lang)
    lines = [describe(event, names, LEARNER, words) + "." for event in told.events]
    if told.coach is not None:
        lines.append("💬 " + coach_words(told.coach, lang, names=names))
    return lines


def wrong_words(verdict: Verdict, lang: object = DEFAULT) -> str:
    """Why a tap was not played, and what to try instead."""
    _ = translator(lang).gettext
    if verdict.refusal is not None:
        return _(REFUSED).format(why=explain(verdict.refusal, lang))
    return _(ALLOWED)
