"""The guided first hand (``/nlk learn``): a fixed deal against two AI seats, replayed
through the engine, with a coach who names the move wanted and the rule behind it.

The lesson is a script: a collect position (RULES.md §8) and every action of the hand, each
checked by the engine as it is applied, so the rules stay the engine's. The learner sits in
seat 0. A *step* is one of the learner's taps; between two steps the AI seats move, and the
learner's moves that leave no choice play themselves, each told in words with its rule.
The buttons are the legal moves, as at a real table. A tap that is not the step's move is
never played: the engine's refusal, or what that move would have done, says why, and the
learner tries again.

>>> first = situation(0)
>>> first.coach.rules, [str(a) for a in first.options]
(('R1.2', 'R3.1', 'R3.3'), ['draw'])
>>> judge(0, Action.parse("draw")).right
True
>>> judge(6, Action.parse("play AH")).rule
'R4.2'
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.actions import Act, Action
from rules.cards import SUIT, Card
from rules.engine import Game
from rules.errors import IllegalAction
from rules.explain import explain
from rules.hint import Reason
from rules.i18n import DEFAULT, N_, translator
from rules.phase import Phase
from rules.play import Words, describe

# The deal's name: "2" since issue 45 reworked the hand (a fit across suits, two stack gives
# in a row); progress stored under "1" starts this one from its beginning.
LESSON = "2"
LEARNER = 0
AI_NAMES = ("Eszter", "Bence")
DEALER = 2  # Bence dealt, so the learner, after him, plays first (R2.2, R3.1)
STACKS = (("9H",), ("QH",), ("9C",))  # bottom → top, seat by seat
TALON = ("KC", "AH", "8C", "9S", "TS", "8H", "JD")  # top first


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
        "A hand of NLK has two phases: in the **collect** phase everyone builds a face-up "
        "stack; in the **shed** phase the stacks become hands, and the last player holding "
        "cards loses. The pack depends on the number of players: with three, the Aces down "
        "to the 8s (28 cards); each player more adds a lower rank, the 7s with four (R1.2). "
        "Bence dealt one card face up to each of you, so you, the player after the dealer, "
        "play first (R3.1). A turn always includes a draw: you turn up the top card of the "
        "talon (R3.3). Nothing of yours fits anywhere yet, so tap {button}."),
        ("R1.2", "R3.1", "R3.3")), tap=True),
    _line(0, "give KC 1", Coach(N_(
        "You drew {card}. A card fits on a stack when it is exactly one rank higher than its "
        "top card, whatever the suits (R3.2): {card} fits on Eszter's {top}, a club on a "
        "heart. Cards you give away are cards you won't have to shed later. Tap {button}."),
        ("R3.2",), (("card", "KC"), ("top", "QH"))), tap=True),
    _line(0, "draw", Coach(N_(
        "After giving a drawn card you must draw again (R3.3). With no choice, the draw "
        "played itself, as moves with no choice do at a real table."), ("R3.3",))),
    _line(0, "keep", Coach(N_(
        "{card} fits on Eszter's {top}, but nobody is ever obliged to give (R3.3). Aces are "
        "the strongest cards in the shed phase, so keep it: tap {button}. Keeping ends your "
        "turn."), ("R3.3",), (("card", "AH"), ("top", "KC"))), tap=True),
    _line(1, "draw"),
    _line(1, "give 8C 0", Coach(N_(
        "The lowest rank of the pack fits on an Ace (R3.2): with three players that is the "
        "8s, so Eszter put {card} on your {top}."),
        ("R3.2",), (("card", "8C"), ("top", "AH")))),
    _line(1, "draw"),
    _line(1, "keep", Coach(N_(
        "{card} fits on your {top}, but Eszter kept it: giving is never compulsory (R3.3)."),
        ("R3.3",), (("card", "9S"), ("top", "8C")))),
    _line(2, "give 9C 0", Coach(N_(
        "Before drawing, a player may give the top card of their own stack where it fits "
        "(R3.3): Bence gave his {card} to you."), ("R3.3",), (("card", "9C"),))),
    _line(2, "draw"),
    _line(2, "give TS 0"),
    _line(2, "draw"),
    _line(2, "keep", Coach(N_(
        "{card} fit nowhere, so Bence had to keep it (R3.3)."), ("R3.3",),
        (("card", "8H"),))),
    _line(0, "give TS 1", Coach(N_(
        "Your turn again. Before you draw, you may give the top card of your own stack, "
        "then the card below it, as many as fit (R3.3): your {card} fits on Eszter's {top}. "
        "Tap {button}."), ("R3.3",), (("card", "TS"), ("top", "9S"))), tap=True),
    _line(0, "give 9C 2", Coach(N_(
        "Your new top card, {card}, fits on Bence's {top}: give it too, before you draw. Tap "
        "{button}."), ("R3.3",), (("card", "9C"), ("top", "8H"))), tap=True),
    _line(0, "draw", Coach(N_(
        "Nothing else could move, so your draw played itself. It was the last talon card, "
        "{card}: whoever draws it keeps it, its suit is trump for the shed phase, and they "
        "lead first (R3.4). A table's footer names its variants: “last card kept” is this "
        "rule, and “trump any time” means you may trump even when you could beat in suit "
        "(R6.1, R6.2)."), ("R3.4", "R6.1", "R6.2"), (("card", "JD"),))),
    _line(0, "play 8C", Coach(N_(
        "The shed phase: your stack is now your hand, hidden from the others, and the last "
        "player holding cards loses (R4.1); this lesson shows every hand, so you can follow. "
        "You lead: any card will do (R4.4). Start with a "
        "low one you don't mind losing: tap {button}."), ("R4.1", "R4.4")), tap=True),
    _line(1, "take", Coach(N_(
        "Eszter could have beaten it with a higher club, but she took {card}, the trick's "
        "bottom card: taking is always allowed, and it is what you do when you can't beat "
        "(R4.5). She took the only card, so the trick is empty and the player after her, "
        "Bence, leads the next one (R4.7)."),
        ("R4.5", "R4.7"), (("card", "8C"),))),
    _line(2, "play 8H"),
    _line(0, "play 9H", Coach(N_(
        "To beat a card, play a higher card of its suit, or a trump (R4.2). Beat {top} in "
        "suit: tap {button}."), ("R4.2",), (("top", "8H"),)), tap=True),
    _line(1, "play QH", Coach(N_(
        "Eszter beat it with a higher heart. A trick holds as many cards as there were "
        "players in when it was led: three, so it is full and set aside; Eszter completed "
        "it, so she leads (R4.3, R4.6)."),
        ("R4.2", "R4.3", "R4.6"))),
    _line(1, "play 8C"),
    _line(2, "play 9C", Coach(N_(
        "Bence beat {top} with {card}, his last card: he is out and safe (R4.8). This trick "
        "still needs three cards: its size was fixed when it was led (R4.3)."),
        ("R4.8", "R4.3"), (("top", "8C"), ("card", "9C")))),
    _line(0, "play JD", Coach(N_(
        "You have no club, but a trump beats any card that is not a trump (R4.2). Trump it: "
        "tap {button}."), ("R4.2",)), tap=True),
    _line(0, "play AH", Coach(N_(
        "You filled the trick, so you lead again (R4.6). Only you and Eszter are still in, "
        "so this trick will hold just two cards (R4.3). Play your last card and you are out "
        "(R4.8): tap {button}."), ("R4.6", "R4.3", "R4.8")), tap=True),
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
    """The buttons: the legal moves only, as at a real table (issue 45: the shed phase
    offered every card in hand, A♥ where it could not beat); cards in hand order, then
    **Take**. A move typed or forged anyway is still judged, and refused with its rule."""
    legal = game.legal_actions()
    if game.phase is not Phase.SHED:
        return tuple(legal)
    plays = sorted((a for a in legal if a.act == Act.PLAY), key=lambda a: a.card or 0)
    return (*plays, *(a for a in legal if a.act == Act.TAKE))


@dataclass(frozen=True)
class Verdict:
    """What a tap gets: ``right`` moves on; otherwise ``rule`` and why: the engine's
    ``refusal``, or for a move allowed at a real table, what it ``would`` have done."""

    right: bool
    rule: str | None = None
    refusal: IllegalAction | None = None
    would: Reason | None = None


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
    would = would_do(here.game, action)
    return Verdict(False, would.rule, would=would)


# What an allowed move other than the step's would have done, said to the learner (issue 45:
# one sentence for every such tap said nothing about the move tapped).
WOULD_GIVE_DRAWN = N_("Giving {card} to {name} would put it on their {top}, and you would "
                      "draw again.")
WOULD_GIVE_STACK = N_("Giving {card} from your stack to {name} would put it on their {top}, "
                      "and the card below it would become your top.")
WOULD_DRAW = N_("Drawing now would end your stack gives for this turn: from the first draw "
                "on, only the drawn card may be given.")
WOULD_KEEP = N_("Keeping {card} would put it on your own stack and end your turn.")
WOULD_LEAD = N_("Leading {card} would start the trick with it.")
WOULD_BEAT = N_("{card} would beat {top} in suit.")
WOULD_TRUMP = N_("{card} would trump {top}: a trump beats any card of another suit.")
WOULD_TAKE = N_("Taking would put {bottom}, the trick's bottom card, into your hand.")


def would_do(game: Game, action: Action) -> Reason:
    """What ``action``, legal for the learner in ``game``, would do, with its rule."""
    if action.act == Act.GIVE:
        assert action.card is not None and action.to is not None
        cards = (("card", action.card), ("top", Card(game.stacks[action.to][-1])))
        if game.drawn is not None:
            return Reason(WOULD_GIVE_DRAWN, "R3.2", cards, seat=action.to)
        return Reason(WOULD_GIVE_STACK, "R3.3", cards, seat=action.to)
    if action.act == Act.DRAW:
        return Reason(WOULD_DRAW, "R3.3")
    if action.act == Act.KEEP:
        assert game.drawn is not None
        return Reason(WOULD_KEEP, "R3.3", (("card", Card(game.drawn)),))
    if action.act == Act.TAKE:
        return Reason(WOULD_TAKE, "R4.5", (("bottom", Card(game.trick[0])),))
    assert action.card is not None
    if not game.trick:
        return Reason(WOULD_LEAD, "R4.4", (("card", action.card),))
    top = Card(game.trick[-1])
    text = WOULD_BEAT if SUIT[action.card] == SUIT[top] else WOULD_TRUMP
    return Reason(text, "R4.2", (("card", action.card), ("top", top)))


# --- in words ------------------------------------------------------------------------------

ALLOWED = N_("That move is allowed at a real table, but it is not the one this step is "
             "about, so it was not played. Try the move the coach names below.")
ALLOWED_WOULD = N_("{would} That is allowed at a real table, but this step is about another "
                   "move, so it was not played. Try the move the coach names below.")
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


def wrong_words(verdict: Verdict, lang: object = DEFAULT,
                names: tuple[str, ...] | None = None) -> str:
    """Why a tap was not played (the rule that refuses it, or what it would have done),
    and what to try instead."""
    _ = translator(lang).gettext
    if verdict.refusal is not None:
        return _(REFUSED).format(why=explain(verdict.refusal, lang))
    if verdict.would is not None:
        return _(ALLOWED_WOULD).format(
            would=verdict.would.words(names or ("You", *AI_NAMES), lang))
    return _(ALLOWED)
