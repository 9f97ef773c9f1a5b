"""Words and small pieces every surface shares: names, cards, rules, links."""

from __future__ import annotations

import datetime

import discord

from bot.db.records import Mark
from bot.tables.service import Table
from rules import Card, Variant
from rules.cards import SUITS
from rules.i18n import DEFAULT, Lang, rank_text, shown_name, translator, variant_text
from rules.i18n import number as written_number

COLOUR = discord.Colour(0x2E7D32)


MAX_PLAY_BUTTONS = 20  # four rows of five; the fifth row holds Take and Refresh


NAME_LIMIT = 32


# Names are cut, never the words around them; and only long ones: "AI 2 (strong)" and a
# first name with a short surname ("Zsófia Tóth") stay whole in move lines and the trick.
LABEL_NAME = 32  # names on button labels (a label holds 80: the longest has 40 of words)
SHORT_NAME = 16  # names inside move lines and the trick: the seat list has them in full


# The table message stays readable on a phone: at most this much, whatever the seats.
TABLE_CHARS = 1200


TABLE_LINES = 20


FINGERPRINT = 12  # hex characters of the commitment shown on the table message


LOG_PAGE_CHARS = 3800  # one page of the moves log (an embed description holds 4,096)


def marks(lang: Lang = DEFAULT) -> dict[Mark, str]:
    """What a move nobody chose is marked with: forced, by an AI seat (🤖), by a stand-in
    playing a late person's turn (⏱, issue 45: both were 🤖, and told apart by nothing)."""
    _ = translator(lang).gettext
    return {Mark.FORCED: " " + _("(no choice)"), Mark.AI: " 🤖",
            Mark.STAND_IN: f" {STAND_IN_SYMBOL} " + _("(stand-in)")}


FORCED_SYMBOL = "✱"  # a move with no choice, in a line that mixes kinds of moves
STAND_IN_SYMBOL = "⏱"  # a move a stand-in made when a person's turn timer ran out
MARKS = marks(Lang.EN)


def cut_name(name: str, chars: int) -> str:
    """``name`` cut to ``chars`` characters, with "…" where it was cut: the one way any
    surface shortens a name."""
    return name if len(name) <= chars else name[:chars - 1] + "…"


def safe_name(text: str) -> str:
    """A player's name made safe for an embed."""
    return discord.utils.escape_markdown(discord.utils.escape_mentions(
        cut_name(text, NAME_LIMIT)))


def label_name(text: str, lang: Lang = DEFAULT) -> str:
    """A name for a button label (no markdown there), an AI's in ``lang``."""
    return cut_name(shown_name(text, lang), LABEL_NAME)


def player_name(name: str, lang: Lang = DEFAULT, chars: int = NAME_LIMIT) -> str:
    """A player's name as ``lang``'s reader sees it in an embed: an AI seat named in their
    words ("Gép 2 (erős)"), cut to ``chars`` and made safe."""
    return safe_name(cut_name(shown_name(name, lang), chars))


def player_names(players: tuple[str, ...] | list[str], lang: Lang = DEFAULT
                 ) -> tuple[str, ...]:
    """Every seat's ``player_name``, in seat order."""
    return tuple(player_name(p, lang) for p in players)


# Red suits as emoji, which are red on Discord's dark and light themes alike; black suits as
# text (VS15 asks for the text form), drawn in the theme's own text colour, where a black
# emoji would all but vanish on the dark theme.
SUIT_MARKS = ("\u2660\ufe0e", "\u2665\ufe0f", "\u2666\ufe0f", "\u2663\ufe0e")


def suit_mark(suit: int) -> str:
    """A suit as the bot shows it on Discord (``SUITS`` index)."""
    return SUIT_MARKS[suit]


def card_text(card: Card, lang: Lang = DEFAULT, letters: Lang | None = None) -> str:
    """A card as the bot shows it on Discord, in the language's letters and with the suit's
    colour mark: ``10♥️``, ``J♠︎``, Hungarian ``B♠︎``, French ``V♠︎`` (the engine says
    ``10♥``; input stays ``TH``).

    ``letters``: another language's letters, when they are not ``lang``'s. Card letters
    follow the reader, as words do: a private message (your hand, its buttons, Moves, a
    refusal, the lesson) shows your own letters, a public one (the table message, pings,
    notices) the place's. A French player on an English server reads "Ramasser V♥️" in her
    hand, and "J♥️" on the table message everyone reads."""
    return rank_text(card.rank, letters or lang) + SUIT_MARKS[card.suit]


def rules_line(variant: Variant, lang: Lang = DEFAULT) -> str:
    """A table's rules in one short line, in ``lang`` (``Variant.describe`` in English)."""
    return variant_text(variant.last_card, variant.must_beat_in_suit, lang)


def timer_line(seconds: int, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    return _("{seconds} s per turn").format(seconds=written_number(seconds, lang)) \
        if seconds > 0 \
        else _("no turn timer")


def short_names(players: tuple[str, ...], lang: Lang = DEFAULT) -> tuple[str, ...]:
    """Names cut for move lines and the trick; names that would clash stay whole."""
    players = tuple(shown_name(p, lang) for p in players)
    cut = [cut_name(p, SHORT_NAME) for p in players]
    return tuple(safe_name(p if cut.count(c) > 1 else c) for p, c in zip(players, cut,
                                                                         strict=True))


def hand_text(cards: tuple[Card, ...], trump: str | None, lang: Lang = DEFAULT,
              letters: Lang | None = None) -> str:
    """A hand by suit, trumps last: ``♠︎ 7 9 J · ♥️ 8 Q`` (ranks in ``letters``)."""
    _ = translator(lang).gettext
    if not cards:
        return _("*no cards*")
    trump_index = SUITS.index(trump) if trump else None
    suits = [s for s in range(4) if s != trump_index] + ([trump_index]
                                                         if trump_index is not None else [])
    parts = []
    for s in suits:
        ranks = [rank_text(c.rank, letters or lang) for c in sorted(cards) if c.suit == s]
        if ranks:
            mark = " " + _("(trump)") if s == trump_index else ""
            parts.append(f"{SUIT_MARKS[s]}{mark} {' '.join(ranks)}")
    return "\n".join(parts)


def seed_proof(seed: str, lang: Lang = DEFAULT) -> str:
    """What a finished hand's revealed seed proves, in one line a player understands; the
    command that checks it is in the **Fair deal** button's private message, where those
    who run it look (issue 45: a bare `python -m rules verify …` meant nothing in Discord)."""
    _ = translator(lang).gettext
    return _("Dealt from seed `{seed}`, fixed before the first card: its fingerprint was shown "
             "all hand, so nobody could pick the cards. **Fair deal** shows how to check "
             "it.").format(seed=seed)


def message_url(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    """A link to a message (to its channel while there is no message)."""
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def jump_url(table: Table) -> str:
    """A link to the table message."""
    return message_url(table.guild_id, table.channel_id, table.message_id)


def countdown(deadline: float) -> str:
    """A live countdown that Discord keeps current ("in 42 seconds")."""
    moment = datetime.datetime.fromtimestamp(deadline, tz=datetime.UTC)
    return discord.utils.format_dt(moment, "R")
