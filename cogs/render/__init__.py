"""Everything the bot draws, from per-seat views only, one module per surface.

The table message (``table``) is drawn from the public view, never a hand; a player's hand
(``hand``) from that player's own view, sent ephemerally; the turn ping (``ping``); what
anyone can look up privately (``info``: the moves log, the fair deal, the rules); and the
pieces they share (``text``: names, cards; ``history``: moves folded into turns).
"""

from cogs.render.hand import hand_message, hand_shows
from cogs.render.history import (
    Turn as Turn,  # (a class: not in __all__, whose words the i18n test reads)
)
from cogs.render.history import log_lines, turn_text, turns
from cogs.render.info import (
    fair_button,
    fair_message,
    moves_message,
    rules_text,
    seed_revealed,
)
from cogs.render.ping import ping_message
from cogs.render.table import (
    embed_size,
    end_confirmation,
    finishing_order,
    learn_button,
    next_dealer_sentence,
    next_hand_seats,
    quiet_table,
    table_embed,
    table_view,
)
from cogs.render.text import (
    COLOUR,
    FORCED_SYMBOL,
    MARKS,
    card_text,
    jump_url,
    message_url,
    player_name,
    rules_line,
    safe_name,
    seed_proof,
    timer_line,
)

__all__ = [
    "COLOUR",
    "FORCED_SYMBOL",
    "MARKS",
    "card_text",
    "embed_size",
    "end_confirmation",
    "fair_button",
    "fair_message",
    "finishing_order",
    "hand_message",
    "hand_shows",
    "jump_url",
    "learn_button",
    "log_lines",
    "message_url",
    "moves_message",
    "next_dealer_sentence",
    "next_hand_seats",
    "ping_message",
    "player_name",
    "quiet_table",
    "rules_line",
    "rules_text",
    "safe_name",
    "seed_proof",
    "seed_revealed",
    "table_embed",
    "table_view",
    "timer_line",
    "turn_text",
    "turns",
]
