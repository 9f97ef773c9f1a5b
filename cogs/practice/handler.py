"""Answers ``/nlk practice`` and its buttons: an unrated hand against AI seats
(``rules/practice.py``), drawn into the player's own private message like the lesson's
table (``cogs/lesson/handler.py``: the same way out, the same buttons), without the coach and
with a **Hint** (``rules/hint.py``). The hand is stored after every tap, so ``/nlk practice``
resumes it after a restart or after the message has expired. Nothing here is rated, and
nothing is written where the stats and the boards read.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import secrets
from collections import OrderedDict
from concurrent.futures import Executor
from typing import Any

import discord
from discord import app_commands

from bot.db.lesson_queries import PracticeQueries, StoredPractice
from bot.db.records import Mark
from bot.ops.workers import off_loop
from cogs.answers import rulebook
from cogs.answers.interaction import display_name
from cogs.answers.replies import describe, say
from cogs.client import Interaction
from cogs.i18n.translator import L_, lang_of
from cogs.lesson.handler import defer_answer, in_time, move_label, send
from cogs.lesson.ids import MOVES, act_of, action_of
from cogs.pictures import FOUR, OFF, Picture, Pictures
from cogs.pictures.replay import REPLAY_FILE, replay_scene
from cogs.pictures.scenes import hand_scene, table_scene
from cogs.practice.ids import Way, practice_id
from cogs.render.history import (
    SHED_ACTS,
    dealt_line,
    forced_reasons,
    out_line,
    turn_text,
    turns,
    went_out,
)
from cogs.render.text import suit_mark
from cogs.widgets.buttons import Buttons, NLKButton, NLKSelect
from rules import practice
from rules.actions import Act, Action
from rules.engine import Game
from rules.errors import IllegalAction
from rules.explain import explain
from rules.hint import Hint
from rules.i18n import N_, Lang, level_name, shown_name, translator
from rules.phase import Phase
from rules.views import observe

log = logging.getLogger(__name__)
# The longest a practice answer waits for the AI seats' moves before it is deferred.
THINK_WAIT = 1.5

COLOUR = discord.Colour.from_rgb(70, 130, 180)
AI_SEATS = 3  # a new hand's AI seats when none are asked for (four players)
TOLD_LINES = 20  # lines above the table: a round of nine seats, why, who went out
BUTTONS = 20  # four rows of five; the fifth holds Hint or Play again
MOVE = re.compile(MOVES)
LEVEL_CHOICES = [
    app_commands.Choice(name=L_("random — any legal move"), value="random"),
    app_commands.Choice(name=L_("standard — plays by rules of thumb"), value="heuristic"),
    app_commands.Choice(name=L_("strong — thinks ahead"), value="strong"),
]
LEVEL_WORDS = N_("Practice · {players} players · AI {level}")
GAMES_KEPT = 128  # the latest hands' games (tens of kilobytes each: a few megabytes in all)


class Games:
    """The latest practice hands' games, kept by what makes them (seats, level, seed and
    moves), so that a tap replays its hand from the deal at most once instead of at each
    step of its answer (a hand is hundreds of moves, a replay milliseconds of the event
    loop). Each caller gets a copy of its own. Nothing here is needed to answer: a hand not
    kept is replayed, so an answer after a restart is the same."""

    def __init__(self, size: int = GAMES_KEPT) -> None:
        self.size = size
        self._games: OrderedDict[tuple[object, ...], Game] = OrderedDict()
        self._hands: OrderedDict[StoredPractice, practice.Practice] = OrderedDict()

    def hand(self, stored: StoredPractice) -> practice.Practice:
        """The stored hand, its moves read back (``IllegalAction`` and the like if they
        don't replay)."""
        found = self._hands.get(stored)
        if found is None:
            found = practice.Practice(stored.players, stored.level, stored.seed,
                                      practice.moves_of(stored.moves), stored.hints)
            self.game(found)  # it replays
            _keep(self._hands, stored, found, self.size)
        else:
            self._hands.move_to_end(stored)
        return found

    def game(self, hand: practice.Practice, names: tuple[str, ...] | None = None) -> Game:
        """The hand's game now (a copy of its own), with ``names`` if given."""
        key = _key(hand)
        found = self._games.get(key)
        if found is None:
            found = practice.replay(hand)
            _keep(self._games, key, found, self.size)
        else:
            self._games.move_to_end(key)
        game = found.copy()
        if names is not None:
            game.names = tuple(names)
        return game

    def keep(self, hand: practice.Practice, game: Game) -> None:
        """``game`` is ``hand``'s now, and nobody changes it any more."""
        _keep(self._games, _key(hand), game, self.size)


def _key(hand: practice.Practice) -> tuple[object, ...]:
    return (hand.players, hand.level, hand.seed, hand.moves)


def _keep(kept: OrderedDict[Any, Any], key: Any, value: Any, size: int) -> None:
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > size:
        kept.popitem(last=False)


class Practices:
    """Practice hands for any number of players; nothing is kept between answers but the
    stored hand, so a button answered after a restart is answered as before it."""

    def __init__(self, store: PracticeQueries, pictures: Pictures,
                 pool: Executor | None = None) -> None:
        self.store = store
        self.pictures = pictures
        self.games = Games()
        # The AI seats' moves and the hints think in the AI's processes (without them, in
        # a thread), never holding the interpreter lock that every answer needs.
        self.pool = pool

    # --- the command -----------------------------------------------------------------------

    async def open(self, interaction: Interaction, ai_seats: int | None = None,
                   level: str | None = None) -> None:
        """``/nlk practice``: the hand under way, or a new one (asked for with options, or
        the last one is over)."""
        try:
            stored = await self.store.practice(interaction.user.id)
            hand = self._hand(stored) if stored is not None else None
            if stored is None or hand is None or ai_seats is not None or level is not None \
                    or self.games.game(hand).is_over:
                number = (stored.number if stored is not None else 0) + 1
                seats = ai_seats or (hand.players - 1 if hand is not None else AI_SEATS)
                chosen = level or (hand.level if hand is not None else practice.LEVEL)
                await self._start(interaction, number, seats + 1, chosen, edit=False)
                return
            await self._answer(interaction, stored.number, hand, edit=False)
        except Exception as error:  # never a traceback for the player: a code, logged
            await say(interaction, describe(error, lang_of(interaction))[0])

    # --- the buttons -----------------------------------------------------------------------

    async def click(self, interaction: Interaction, number: int, version: int, act: str
                    ) -> None:
        """A move, the Hint, or another hand, tapped on a practice message."""
        lang = lang_of(interaction)
        _ = translator(lang).gettext
        try:
            rule = rulebook.rule_of(act)
            if rule is not None:  # a "📖 R4.2" button: the rule, privately; the hand stays
                await rulebook.open_rule(interaction, rule)
                return
            stored = await self.store.practice(interaction.user.id)
            hand = self._hand(stored) if stored is not None else None
            if stored is None or hand is None:
                await self.unknown(interaction)
                return
            moved_on = _("Your practice hand had moved on from that message: here is where "
                         "you are.")
            if act == Way.MOVES:  # the whole hand so far, privately; the hand stays
                await self._moves(interaction, hand)
                return
            if act == Way.AGAIN and number == stored.number:
                await self._start(interaction, stored.number + 1, hand.players, hand.level,
                                  edit=True)
                return
            if act == Way.AGAIN:  # an older hand's: the hand under way stays
                await self._answer(interaction, stored.number, hand, edit=True, note=moved_on)
                return
            if number != stored.number or version != len(hand.moves):
                await self._answer(interaction, stored.number, hand, edit=True, note=moved_on)
                return
            game = self.games.game(hand)
            if game.to_act != practice.PLAYER:  # the hand is over
                await self._answer(interaction, stored.number, hand, edit=True)
                return
            if act == Way.HINT:
                hint = await off_loop(self.pool, functools.partial(practice.suggestion,
                                                                   hand))
                hand = practice.hinted(hand)
                await self._save(interaction.user.id, stored.number, hand)
                await self._answer(interaction, stored.number, hand, edit=True, hint=hint)
                return
            action = action_of(act) if MOVE.fullmatch(act) else None
            if action is None:
                await self._answer(interaction, stored.number, hand, edit=True, note=moved_on)
                return
            try:
                played = practice.play(hand, action, game)
            except IllegalAction as refused:
                await self._answer(interaction, stored.number, hand, edit=True, note="❌ " + _(
                    "That move isn't allowed: {why}. Try again.").format(
                        why=explain(refused, lang)), cites=(refused.rule,))
                return
            moved = await self._advance(played, game, interaction)
            await self._save(interaction.user.id, stored.number, moved)
            await self._answer(interaction, stored.number, moved, edit=True)
        except Exception as error:  # never a traceback for the player: a code, logged
            await say(interaction, describe(error, lang_of(interaction))[0])

    async def _moves(self, interaction: Interaction, hand: practice.Practice) -> None:
        """The hand's whole log, as a real table's **Moves**, in a private message."""
        lang = lang_of(interaction)
        _ = translator(lang).gettext
        names = (display_name(interaction.user),
                 *(shown_name(name, lang) for name in hand.names[1:]))
        game = self.games.game(hand, names)
        lines = round_lines(game, 0, practice.recent(hand).forced, names, lang)
        text = "\n".join(lines) or _("No moves yet.")
        if len(text) > 4000:
            text = "…\n" + text[-3990:].split("\n", 1)[-1]
        embed = discord.Embed(colour=COLOUR, title=_("Moves"), description=text)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    async def unknown(self, interaction: Interaction) -> None:
        """A practice-shaped custom id that no version of the buttons made."""
        await say(interaction, translator(lang_of(interaction)).gettext(
            "That practice button doesn't make sense any more; nothing changed. Open your "
            "practice hand again with `/nlk practice`."))

    # --- the hand --------------------------------------------------------------------------

    async def _start(self, interaction: Interaction, number: int, players: int, level: str,
                     *, edit: bool) -> None:
        hand = practice.deal(players, level, secrets.token_hex(8))
        game = practice.replay(hand)
        moved = await self._advance(hand, game, interaction)
        await self._save(interaction.user.id, number, moved)
        await self._answer(interaction, number, moved, edit=edit)

    async def _advance(self, hand: practice.Practice, game: Game,
                       interaction: Interaction) -> practice.Practice:
        """``practice.advance``, thought out in another process from the hand alone (a few
        hundred bytes to send; it replays the hand there): its moves are then played on
        ``game`` (``hand``'s), which is kept as the hand's. If the AI seats think longer
        than ``THINK_WAIT`` (a busy machine, their process still starting), the answer is
        deferred, so that Discord's 3 seconds never pass unanswered."""
        thinking = asyncio.ensure_future(
            off_loop(self.pool, functools.partial(practice.advance, hand)))
        await asyncio.wait((thinking,), timeout=THINK_WAIT)
        if not thinking.done():
            await defer_answer(interaction)
        moved, made = await thinking
        for seat, action in made:
            game.apply(action, seat)
        self.games.keep(moved, game)
        return moved

    async def _save(self, user_id: int, number: int, hand: practice.Practice) -> None:
        await self.store.save_practice(user_id, StoredPractice(
            number, hand.players, hand.level, hand.seed, practice.text_of(hand.moves),
            hand.hints))

    # --- drawing ---------------------------------------------------------------------------

    async def _answer(self, interaction: Interaction, number: int, hand: practice.Practice,
                      *, edit: bool, note: str | None = None, hint: Hint | None = None,
                      cites: tuple[str, ...] = ()) -> None:
        lang = lang_of(interaction)
        _ = translator(lang).gettext
        names = (display_name(interaction.user),
                 *(shown_name(name, lang) for name in hand.names[1:]))
        game = self.games.game(hand, names)
        embed = discord.Embed(colour=COLOUR, title=_(LEVEL_WORDS).format(
            players=hand.players, level=level_name(hand.level, lang)))
        lines = self._told(hand, game, names, lang)
        if note:
            lines = [note, "", *lines]
        lines += ["", _status(game, hand, lang)]
        if hint is not None:
            lines += ["", "💡 " + hint.reason.words(names, lang)]
        if hand.hints:
            lines.append(translator(lang).ngettext(
                "Hints used: {count}. A practice hand is never rated.",
                "Hints used: {count}. A practice hand is never rated.", hand.hints).format(
                    count=hand.hints))
        embed.description = "\n".join(lines)[-4000:]
        picture = await self._picture(interaction, game, embed, lang)
        if hint is not None:
            cites = (*cites, hint.reason.rule)
        view = practice_view(game, number, len(hand.moves), lang,
                             hint.action if hint is not None else None, cites)
        await send(interaction, embed, view, picture, edit=edit)

    async def _picture(self, interaction: Interaction, game: Game, embed: discord.Embed,
                       lang: Lang) -> Picture | None:
        """The collect phase as the lesson shows it (everything in it is public); in the shed
        phase the player's own hand, and the table's public cards in words."""
        _ = translator(lang).gettext
        style = await self.pictures.styles.private_or_known(interaction.user.id,
                                                            interaction.guild_id)
        picture: Picture | None = None
        try:
            if game.phase is Phase.COLLECT:
                scene, alt = replay_scene(game, lang, style == FOUR, lang)
                if style != OFF:
                    picture = await in_time(interaction,
                                            self.pictures.replay(scene, alt, REPLAY_FILE))
                if picture is None:
                    embed.add_field(name=_("The table"), value=alt[:1024], inline=False)
                return picture
            view = observe(game, practice.PLAYER)
            table = table_scene(view, lang, style == FOUR)
            if table is not None:
                embed.add_field(name=_("The table"), value=table[1][:1024], inline=False)
            own = hand_scene(view, lang, style == FOUR, lang)
            if style != OFF:
                picture = await in_time(interaction,
                                        self.pictures.hand_picture(own, urgent=True))
            if picture is None and own is not None:
                embed.add_field(name=_("Your hand"), value=own[1][:1024], inline=False)
        except Exception:
            log.warning("could not draw a practice picture; sending text", exc_info=True)
        return picture


    def _hand(self, stored: StoredPractice) -> practice.Practice | None:
        """The stored hand, or None if it no longer replays (then a new one is dealt)."""
        try:
            return self.games.hand(stored)
        except Exception:
            log.warning("a stored practice hand did not replay; dealing a new one",
                        exc_info=True)
            return None

    def _told(self, hand: practice.Practice, game: Game, names: tuple[str, ...],
              lang: Lang) -> list[str]:
        """What happened since the player's last turn, a line per turn as at real tables
        (issue 45: a tap that played 29 moves showed only the last 12 events), each move
        that played itself for the player with why, and who went out; the hand's first
        message says who dealt. A hint or a refusal tells the same again."""
        recent = practice.recent(hand)
        return round_lines(game, recent.start, recent.forced, names, lang)[-TOLD_LINES:]


def round_lines(game: Game, start: int, forced: frozenset[int], names: tuple[str, ...],
                lang: Lang) -> list[str]:
    """The lines of ``game``'s history from event ``start`` on (see ``_told``); the whole
    log from the first move (the **Moves** button)."""
    _ = translator(lang).gettext
    history = game.history()
    kinds = dict.fromkeys(forced, Mark.FORCED)
    lines: list[str] = []
    if start <= sum(1 for e in history if e.act == Act.DEAL):
        first = dealt_line(game.dealer, names, lang)
        if first is not None:
            lines.append(first)
    outs = went_out(history, game.out)
    shed = False
    for turn in turns(history, by_phase=True):
        if turn.moves[-1][0] < start:
            shed = shed or turn.moves[0][1].act in SHED_ACTS
            continue
        if not shed and turn.moves[0][1].act in SHED_ACTS:
            shed = True
            if game.trump is not None:
                lines.append(_("**Shed** · trump {suit}").format(suit=suit_mark(game.trump)))
        lines.append(_("{name}: {move}").format(
            name=names[turn.seat], move=turn_text(turn, names, kinds, None, lang)))
        lines += [f"↳ *{why}*" for why in forced_reasons(history, turn.moves, kinds, names,
                                                         practice.PLAYER, lang)]
        lines += [f"↳ *{out_line(event, names, lang)}*" for i, event in turn.moves
                  if i in outs]
    return lines


def _status(game: Game, hand: practice.Practice, lang: Lang) -> str:
    _ = translator(lang).gettext
    outcome = game.outcome()
    if outcome is not None:
        if outcome.loser == practice.PLAYER:
            return _("**You lost this practice hand.** Nobody saw it, and it is never rated: "
                     "tap **Play again** for another.")
        return _("**You are out: you did not lose!** {name} lost this practice hand. Tap "
                 "**Play again** for another.").format(name=game.names[outcome.loser])
    phase = _("Collect") if game.phase is Phase.COLLECT else _("Shed")
    return _("**Your turn** ({phase}). Stuck? Tap **Hint**.").format(phase=phase)


def practice_view(game: Game, number: int, version: int, lang: Lang,
                  hinted: Action | None = None, cites: tuple[str, ...] = ()
                  ) -> discord.ui.View:
    """The legal moves as buttons (the hinted one green), or as menus of up to 25 cards
    when a hand has more; **Hint** while it is the player's turn, **Play again** at the
    end, and beside them a "📖 R4.2" button for each rule the hint or a refusal cites."""
    _ = translator(lang).gettext
    view = Buttons()
    legal = game.legal_actions() if game.to_act == practice.PLAYER else []
    if len(legal) <= BUTTONS:
        for i, action in enumerate(legal):
            style = discord.ButtonStyle.success if action == hinted else \
                discord.ButtonStyle.primary
            view.add_item(NLKButton(practice_id(number, version, act_of(action)),
                                    move_label(action, game, lang), style, row=i // 5))
    else:
        for row in range(4):
            part = legal[row * 25:(row + 1) * 25]
            if part:
                options = [discord.SelectOption(label=move_label(a, game, lang)[:100],
                                                value=act_of(a), default=False)
                           for a in part]
                view.add_item(NLKSelect(practice_id(number, version, f"pick{row}"),
                                        _("Your move"), options, row=row))
    if legal:
        view.add_item(NLKButton(practice_id(number, version, Way.HINT), "💡 " + _("Hint"),
                                row=4))
    elif game.is_over:
        view.add_item(NLKButton(practice_id(number, version, Way.AGAIN), _("Play again"),
                                discord.ButtonStyle.success, row=4))
    if version:
        view.add_item(NLKButton(practice_id(number, version, Way.MOVES), _("Moves"), row=4))
    for rule in rulebook.cited(cites)[:3]:
        view.add_item(NLKButton(practice_id(number, version, rulebook.act_of(rule)),
                                rulebook.label(rule), row=4))
    return view
