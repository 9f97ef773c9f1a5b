"""The cogs' sentences, staged in the catalogue before they are wrapped where they are used.

Each entry is the msgid a string of the cogs will have once phase 2 of the languages work
wraps it in place (see ``cogs/translator.py``); listing them here lets the Hungarian and
French catalogues carry their translations already. When a string is wrapped in its cog,
delete its entry here: extraction then finds it there, and the translation stays.
"""

from __future__ import annotations


def N_(message: str) -> str:
    """Marks a msgid for extraction; translated where it is used."""
    return message


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a plural pair for extraction (``ngettext`` at use)."""
    return singular, plural


def NC_(context: str, message: str) -> tuple[str, str]:
    """Marks a msgid with a context for extraction (``pgettext`` at use)."""
    return context, message


# Slash command, group and option names (context "command"; Discord's naming rules apply).
COMMAND_NAMES = [
    NC_("command", "nlk"), NC_("command", "new"), NC_("command", "hand"),
    NC_("command", "leave"), NC_("command", "end"), NC_("command", "rules"),
    NC_("command", "stats"), NC_("command", "export"), NC_("command", "settings"),
    NC_("command", "seats"), NC_("command", "last_card"), NC_("command", "must_beat_in_suit"),
    NC_("command", "turn_timer"), NC_("command", "user"), NC_("command", "allow_ai"),
    NC_("command", "language"),
]

# Descriptions (≤100 characters) and choice names, cogs/nlk.py.
COMMAND_TEXTS = [
    N_("Play NLK, the Hungarian card game."),
    N_("Open an NLK table in this channel."),
    N_("Show your cards (only you see them)."),
    N_("Leave this channel's table before it starts."),
    N_("End this channel's table (host, or anyone who can manage the channel)."),
    N_("A short summary of the rules at this channel's table."),
    N_("The server's NLK leaderboard, or one player's numbers by table size."),
    N_("Attach this channel's last finished hand as an nlk-replay/1 file."),
    N_("This server's defaults for new NLK tables (needs Manage Server to change)."),
    N_("How many seats (2–9; six is best). Default: the server's setting"),
    N_("Whether the last talon card must be kept (McLeod) or may be given away"),
    N_("Forbid trumping while you can beat in suit (the French rule)"),
    N_("Seconds per turn before a stand-in plays it (0: no timer)"),
    N_("Show one player's numbers instead of the leaderboard"),
    N_("Default seats for new tables (2–9)"),
    N_("Default for the last talon card"),
    N_("Default for the must-beat-in-suit rule"),
    N_("Default seconds per turn (0: no timer)"),
    N_("Whether hosts may add AI players"),
    N_("The language of the bot's public messages in this server"),
    N_("keep — the drawer keeps it (McLeod)"),
    N_("free — it may be given away"),
    N_("The server's own language"),
]

# Refusals, cogs/replies.py (REPLIES keeps its keys; these become its values).
REFUSALS = [
    N_("That button or option doesn't make sense any more; nothing changed."),
    N_("NLK is played in server channels: use this command in a server's channel, not in a "
       "direct message."),
    N_("There is no NLK table in this channel. Start one with `/nlk new`."),
    N_("That table no longer exists."),
    N_("No hand has finished in this channel yet: a hand is exported only once it is over."),
    N_("This channel already has an NLK table. Join that one, or its host can cancel it."),
    N_("You're not playing at this table."),
    N_("Only the players at this table can deal the next hand."),
    N_("Only the host can add AI players."),
    N_("Only the host can remove AI players."),
    N_("Only the host can start the table."),
    N_("Only the host can cancel the table."),
    N_("Only the host, or someone who can manage this channel, can end the table."),
    N_("Changing the server's NLK settings needs the Manage Server permission."),
    N_("AI players are switched off on this server (`/nlk settings`)."),
    N_("An AI is playing your seat while you're away: tap **I'm back** on the table message "
       "first."),
    N_("This table is full ({seats} seats)."),
    N_("You're already seated at this table."),
    N_("This table's hand has already started: watch, or join the next table."),
    N_("This table has already started."),
    N_("The table has started: use `/nlk end` to stop it."),
    N_("NLK needs at least two players: wait for someone to join, or add an AI player."),
    N_("There is no AI player to remove."),
    N_("The hand is under way, so your seat stays yours until it ends. The host (or a "
       "moderator) can stop the table with `/nlk end`."),
    N_("The current hand isn't over yet."),
    N_("The hand hasn't started yet."),
    N_("This hand is over."),
    N_("This table has ended."),
    N_("You're not away: your seat is yours."),
    N_("A table has 2 to 9 seats, not {value}."),
    N_("A turn timer needs at least {minimum} seconds, and at most 3600 (or 0 for none)."),
    N_("There is no AI level called {value}."),
    N_("There is no language called {value}: choose en, hu or fr."),
    N_("It's {name}'s turn."),
    N_("That button is out of date: the table has moved on, so nothing changed. Use the "
       "buttons as they are now."),
    N_("That button belongs to a table in another channel, so nothing changed."),
    N_("I can't run a table in this channel: I'm missing {missing}. Ask a moderator to give "
       "me these permissions here."),
    N_("The bot can't save moves right now (its disk refuses writes), so nothing changed. "
       "Please try again in a while."),
    N_("That can't be done now; nothing changed."),
    N_("You can't use that command here."),
    N_("Sorry — something went wrong on our side (code {code}). Please try again; if it "
       "keeps happening, give that code to the bot's admin."),
    # Discord's names of the permissions a refusal may list.
    N_("Send Messages"), N_("Send Messages in Threads"), N_("Embed Links"),
    N_("Attach Files"),
]

# Command replies, cogs/nlk.py.
REPLIES = [
    N_("NLK table {table} was stopped: its saved moves could not be read back after a "
       "restart. Start a new table with `/nlk new`."),
    N_("{refusal} It's here: {link}"),
    N_("NLK table {table} was ended by {name}."),
    N_("How to play NLK"),
    N_("Hand {number} of table {table}. Replay it with `python -m rules replay {filename}`."),
    N_("NLK settings for this server"), N_("Saved."), N_("Current defaults:"),
    N_("Seats"), N_("Rules"), N_("Turn timer"), N_("AI players"), N_("allowed"), N_("off"),
    N_("Language"), N_("{language} (the server's language)"),
    N_("English"), N_("Hungarian"), N_("French"),
]

# The table message, turn pings, a player's hand and the rules, cogs/render.py.
RENDER = [
    N_("(no choice)"), N_("(stand-in)"), N_("(trump)"), N_("(host)"),
    # Places at a table of at most nine: 1st … 9th.
    N_("{n}st"), N_("{n}nd"), N_("{n}rd"), N_("{n}th"),
    N_("{name} gave {card} to {to}"), N_("{name} drew {card}"), N_("{name} kept {card}"),
    N_("{name} played {card}"), N_("{name} took {card}"), N_("{name} was dealt {card}"),
    N_("*no cards*"), N_("*empty*"),
    N_("NLK table"), N_("This table was cancelled before it started."),
    N_("**The table was ended before this hand finished.**"), N_("Table {table} · closed"),
    N_("NLK table — waiting for players"),
    N_("Tap **Join** to take a seat ({seated}/{seats}). The host taps **Start** when everyone "
       "is in (two or more players)."),
    N_("Table {table} · {rules} · {timer}"),
    N_("{seconds} s per turn"), N_("no turn timer"),
    N_("NLK · hand {number} · collect"), N_("NLK · hand {number} · shed · trump {suit}"),
    N_("NLK · hand {number} · over"),
    N_("*The AI is thinking…*"), N_("Players"), N_("Trick {count}/{size}"),
    N_("Finishing order"), N_("{place}. {name} — **loses**"), N_("Last moves"),
    N_("Seed `{seed}` — check it: `python -m rules verify {seed} {digest} --players {players}`"),
    N_("Commitment (SHA-256 of the seed, revealed at the end): `{digest}`"),
    N_("Fair deal"), N_("Unrated"),
    N_("A stand-in played a turn in this hand, so it doesn't count towards ratings."),
    N_("Table {table} · move {move} · dealer {dealer} · {rules} · {timer}"),
    N_("**{name} loses this hand** and deals the next. Tap **Next hand** to play again."),
    NP_("Talon: **{count}** card", "Talon: **{count}** cards"),
    N_("▶ {name} drew **{card}**: give it where it fits, or keep it."),
    N_("▶ {name} gave the drawn card away and draws again."),
    N_("▶ {name}'s turn: give the top card where it fits, then draw."),
    N_("▶ {name} to beat **{card}** or take."), N_("▶ {name} leads."),
    N_("away (AI playing)"), N_("out ({place})"),
    NP_("loser ({count} card)", "loser ({count} cards)"),
    NP_("{count} card", "{count} cards"), N_("dealer"),
    N_("Join"), N_("Leave"), N_("Start (host)"), N_("Cancel (host)"), N_("Add AI"),
    N_("Add strong AI"), N_("Remove AI"), N_("Next hand"), N_("End table"), N_("My stack"),
    N_("My hand"), N_("I'm back"), N_("Give {card} to {name}"), N_("Draw"), N_("Keep {card}"),
    N_("Done."), N_("Time runs out {countdown}."),
    N_("Time runs out {countdown}, then a stand-in plays it for you."),
    N_("your move (the buttons below, or on the table message)"),
    N_("tap **My hand** to play"),
    N_("{mention} your turn at NLK table {table}: {what}."), N_("Table"),
    N_("Your cards"),
    NP_("Your stack — {count} card", "Your stack — {count} cards"),
    N_("Bottom → top: {cards}"),
    N_("Everyone sees stack tops; this is the whole pile. In the shed phase it becomes your "
       "hidden hand."),
    NP_("Your hand — {count} card", "Your hand — {count} cards"),
    N_("Now"), N_("Note"), N_("Refresh"),
    N_("Table {table} · hand {number} · move {move} · only you can see this"),
    N_("You lost this hand: you deal the next one."), N_("You finished {place}."),
    N_("Waiting for **{name}**."), N_("You're out ({place}). Well played!"),
    N_("**Your lead**: play any card."),
    N_("**Your turn**: nothing beats {top}, so take {bottom}."),
    N_("**Your turn**: beat {top}, or take {bottom}."),
    NP_("Play {suit} — {count} card", "Play {suit} — {count} cards"),
    NP_("Play {suit} (trump) — {count} card", "Play {suit} (trump) — {count} cards"),
    N_("Take {card}"),
    N_("The drawer must keep the last talon card."),
    N_("The last talon card may be given away like any drawn card."),
    N_("While the top card is not a trump, you may not trump if you can beat in suit."),
    N_("You may trump even when you could beat in suit."),
    N_("**NLK** — 2 to 9 players; the pack has the n+4 highest ranks of each suit."),
    N_("**Collect.** On your turn you may give your stack's top card to another stack where it "
       "fits (exactly one rank higher; the lowest rank fits on an Ace), then you must draw. "
       "Give the drawn card where it fits and draw again, or keep it to end your turn. "
       "{last_card} Its suit is trump, and its drawer leads."),
    N_("**Shed.** Stacks become hidden hands. Lead any card; then each player beats the top "
       "card (higher in suit, or a trump) or takes the bottom card of the trick. A trick is "
       "full when it holds as many cards as players were in when it was led; whoever "
       "completed it leads. {must_beat} Play your last card and you're out."),
    N_("The last player holding cards **loses** and deals the next hand."),
]

# The leaderboard and a player's numbers, cogs/stats.py.
STATS = [
    N_("(provisional)"), N_("NLK leaderboard"),
    NP_("{hands} hand · {losses} lost ({rate}; by chance {chance})",
        "{hands} hands · {losses} lost ({rate}; by chance {chance})"),
    N_("No rated hands yet. Hands with AI seats or a stand-in don't count."),
    NP_("Page {page}/{pages} · rating μ ± 2σ (Plackett–Luce over the finishing order) · "
        "provisional under {count} hand",
        "Page {page}/{pages} · rating μ ± 2σ (Plackett–Luce over the finishing order) · "
        "provisional under {count} hands"),
    N_("◀ Previous"), N_("Next ▶"), N_("NLK — {name}"), N_("No rated hands yet on this server."),
    NP_("Rating **{rating}**{provisional} · {hands} hand · {losses} lost ({rate})",
        "Rating **{rating}**{provisional} · {hands} hands · {losses} lost ({rate})"),
    NP_("{count} player", "{count} players"),
]

# The end of a hand, cogs/updates.py.
UPDATES = [
    N_("Hand {number} is over: **{name} loses** and deals next. Finishing order: {order}."),
]
