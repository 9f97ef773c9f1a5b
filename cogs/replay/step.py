"""One replay step as a reader sees it: the move in words with its number, whose turn it is,
at the end the finishing order and the loser; its picture's scene; and the step buttons.

Words and card letters follow the reader's language, as every private message does; a
step shared in the channel is drawn in the place's language, its letters included.
"""

from __future__ import annotations

import discord

from bot.guilds.replays import Opened
from cogs.pictures.replay import ReplayScene, replay_scene
from cogs.render import COLOUR, safe_name
from cogs.render.history import Turn, turn_text
from cogs.render.text import suit_mark
from cogs.replay.ids import Act, replay_id
from cogs.widgets.buttons import Buttons, NLKButton
from rules import Phase
from rules.i18n import DEFAULT, Lang, number, shown_name, translator
from rules.steps import Landmarks, Step

JUMPS = 25  # a select menu offers 25 options at most


def step_embed(opened: Opened, marks: Landmarks, step: Step, lang: Lang = DEFAULT, *,
               letters: Lang | None = None) -> discord.Embed:
    """The step in words: title, the move, the phase, whose turn, and at the end the
    finishing order with the loser."""
    _ = translator(lang).gettext
    game = step.game
    # AI seats in the reader's words ("Gép 1", not the stored "AI 1 (heuristic)").
    names = tuple(safe_name(shown_name(p, lang)) for p in game.names)
    if opened.table_id is not None:
        title = _("Replay · table {table} · hand {number}").format(table=opened.table_id,
                                                                   number=opened.number)
    else:
        title = _("Replay · {players}").format(players=", ".join(
            shown_name(p, lang) for p in game.names))[:256]
    lines = []
    counter = _("Move {number} of {total}").format(number=number(step.number, lang),
                                                   total=number(marks.last, lang))
    if step.number == 0:
        dealer = game.dealer
        move = (_("the deal: {dealer} dealt a card face up to each seat.").format(
            dealer=names[dealer]) if dealer is not None and opened.replay.start.get("deck")
            else _("the starting position."))
    else:
        assert step.mover is not None
        moves = tuple((i, event) for i, event in enumerate(step.events))
        move = _("{name}: {move}").format(
            name=names[step.mover],
            move=turn_text(Turn(step.mover, moves), names, {}, None, lang,
                           letters)) if moves else ""
    lines.append(f"**{counter}** · {move}")
    if game.phase is Phase.COLLECT:
        lines.append(_("**Collect**"))
    elif game.trump is not None:
        lines.append(_("**Shed** · trump {suit}").format(suit=suit_mark(game.trump)))
    if game.to_act is not None:
        lines.append(_("▶ {name} is to act.").format(name=f"**{names[game.to_act]}**"))
    if step.number == marks.last and game.loser is None:
        lines.append(_("The replay stops here: the hand did not finish."))
    embed = discord.Embed(title=title, colour=COLOUR, description="\n".join(lines))
    outcome = game.outcome()
    if outcome is not None:
        loses = " — " + _("**loses**")
        embed.add_field(name=_("Finishing order"), value="\n".join(
            f"{i}. {names[s]}" + (loses if s == outcome.loser else "")
            for i, s in enumerate(outcome.order, 1)), inline=False)
        embed.add_field(name="\u200b", value=_("**{name} loses this hand.**").format(
            name=names[outcome.loser]), inline=False)
    return embed


def step_scene(step: Step, lang: Lang, four: bool, *, letters: Lang | None = None
               ) -> tuple[ReplayScene, str]:
    """The step's picture and its alt text: words in ``lang``, cards in ``letters``."""
    return replay_scene(step.game, lang, four, letters or lang)


def step_view(opened: Opened, marks: Landmarks, at: int, lang: Lang = DEFAULT
              ) -> discord.ui.View:
    """⏮ ◀ ▶ ⏭, Show in channel, and a menu to jump to the shed phase or a trick."""
    _ = translator(lang).gettext
    view = Buttons()
    ref = opened.ref
    for act, emoji, off in ((Act.FIRST, "⏮", at == 0), (Act.PREV, "◀", at == 0),
                            (Act.NEXT, "▶", at >= marks.last),
                            (Act.LAST, "⏭", at >= marks.last)):
        button = NLKButton(replay_id(ref, at, act), "", row=0, disabled=off)
        button.label = None
        button.emoji = emoji
        view.add_item(button)
    view.add_item(NLKButton(replay_id(ref, at, Act.SHOW), _("Show in channel"),
                            discord.ButtonStyle.primary, row=1))
    options = jump_options(marks, at, lang)
    if options:
        view.add_item(discord.ui.Select(custom_id=replay_id(ref, at, Act.JUMP),
                                        placeholder=_("Jump to the shed phase or a trick"),
                                        options=options, row=2))
    return view


def jump_options(marks: Landmarks, at: int, lang: Lang) -> list[discord.SelectOption]:
    """The shed phase's start and the tricks, as many as a menu holds, around ``at``."""
    _ = translator(lang).gettext
    found: list[tuple[int, str]] = []
    if marks.shed is not None:
        found.append((marks.shed, _("Shed phase starts (move {number})").format(
            number=marks.shed)))
    tricks = [(step, _("Trick {count} (move {number})").format(count=i, number=step))
              for i, step in enumerate(marks.tricks, 1)]
    room = JUMPS - len(found)
    if len(tricks) > room:
        # The tricks nearest the step shown: the menu moves along with the reader.
        here = sum(1 for step, _label in tricks if step <= at)
        start = min(max(0, here - room // 2), len(tricks) - room)
        tricks = tricks[start:start + room]
    seen = set()
    options = []
    for step, label in [*found, *tricks]:
        if step not in seen:  # the shed phase starts with its first trick: one option
            seen.add(step)
            options.append(discord.SelectOption(label=label[:100], value=str(step),
                                                default=step == at))
    return options
