"""The NLK card game: cards, the engine, per-seat views, replays and AI players.

Pure and synchronous; nothing here imports discord, aiosqlite or asyncio.
"""

from .actions import DRAW, KEEP, TAKE, Action
from .cards import Card, lowest_rank, pack
from .deal import commitment, shuffled_deck
from .engine import Game
from .errors import (
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
from .events import Event, Outcome
from .phase import Phase
from .variant import Variant
from .views import SeatView, observe

__all__ = [
    "DRAW", "KEEP", "TAKE", "Action", "Card", "CardError", "CardNotHeld", "DealError",
    "DoesNotBeat", "DoesNotFit", "Event", "Game", "HandOver", "IllegalAction", "InputError",
    "NLKError", "NotYourTurn", "Outcome", "Phase", "ReplayError", "SeatView", "Variant",
    "WrongStep", "commitment", "lowest_rank", "observe", "pack", "shuffled_deck",
]
