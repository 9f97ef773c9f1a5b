"""The NLK card game: cards, the engine, per-seat views, replays and AI players.

Pure and synchronous; nothing here imports discord, aiosqlite or asyncio.
"""

from rules.actions import DRAW, KEEP, TAKE, Act, Action
from rules.cards import Card, lowest_rank, pack
from rules.deal import commitment, shuffled_deck
from rules.engine import Game
from rules.errors import (
    CardError,
    CardNotHeld,
    DealError,
    DoesNotBeat,
    DoesNotFit,
    HandOver,
    IllegalAction,
    InputError,
    NLKError,
    NotYourTurn,
    ReplayError,
    WrongStep,
)
from rules.events import Event, Outcome
from rules.phase import Phase
from rules.variant import Variant
from rules.views import SeatView, observe

__all__ = [
    "DRAW", "KEEP", "TAKE", "Act", "Action", "Card", "CardError", "CardNotHeld", "DealError",
    "DoesNotBeat", "DoesNotFit", "Event", "Game", "HandOver", "IllegalAction", "InputError",
    "NLKError", "NotYourTurn", "Outcome", "Phase", "ReplayError", "SeatView", "Variant",
    "WrongStep", "commitment", "lowest_rank", "observe", "pack", "shuffled_deck",
]
