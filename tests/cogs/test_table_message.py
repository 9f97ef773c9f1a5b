"""The table message: small enough for a phone at nine seats, complete enough to follow.

The budget (issue #11): at most 20 lines and 1,200 characters in every state, with 32-character
names. Characters count the embed's title, description, field names and values and footer;
lines count as Discord draws them: the title, each line of the description and of each
field's value, one per field name, and the footer.
"""

import hashlib
import random
import re

import pytest

from bot.db.records import TableStatus
from bot.tables.service import Seat
from cogs import render
from rules import Game, Phase, Variant, observe, shuffled_deck
from rules.i18n import Lang
from tests.helpers import LONG, MARKDOWN, case_seed, check_budget, play, table_for, text_of
from tests.rules.rules_helpers import cards

RED, BLACK = "♥♦", "♠♣"


@pytest.mark.e2e  # every state of a nine-seat hand, drawn in each language: seconds
@pytest.mark.parametrize("lang", list(Lang))
@pytest.mark.parametrize("names", [LONG, MARKDOWN], ids=["long", "markdown"])
def test_the_table_message_fits_twenty_lines_and_1200_characters_at_nine_seats(names, lang):
    seen = set()
    lobby = table_for(Game(9, names=names), status=TableStatus.LOBBY)
    lobby.game, lobby.seats = None, []
    lobby.next_seats = [Seat(1000 + i, n, "strong" if i % 3 else None) for i, n in enumerate(names)]
    check_budget(lobby, lang)
    for table in play(names, case_seed(names, lang)):
        view = table.public_view()
        # The worst case: away seats, a stand-in, the AI thinking.
        table.away = frozenset({3, 4})
        table.stand_in = True
        check_budget(table, lang)
        if view.drawn is not None:
            seen.add("drawn")
        if view.trick and len(view.trick) == view.trick_size - 1:
            seen.add("full trick")
        if view.is_over:
            table.status = TableStatus.OVER
            check_budget(table, lang)
            seen.add("over")
        # Ended by /nlk end at this very moment.
        ended = table.snapshot()
        ended.status = TableStatus.ENDED
        check_budget(ended, lang)
    assert seen == {"drawn", "full trick", "over"}


@pytest.mark.e2e  # whole hands, every state drawn: seconds
def test_whoever_is_to_act_sees_every_move_since_their_last_turn():
    names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy"]
    checked = 0
    for table in play(names, 7):
        view = table.public_view()
        if view.is_over:
            break
        players = render.table_embed(table).fields[0].value.split("\n")
        history = view.history
        mine = [i for i, e in enumerate(history) if e.seat == view.to_act and e.act != "deal"]
        since = [(i, e) for i, e in enumerate(history)
                 if e.act != "deal" and i > (mine[-1] if mine else -1)
                 and not (mine and e.seat == view.to_act)]
        for i, event in since:
            line = players[event.seat]
            assert render.card_text(event.card) in line, (event, line)
            kind = table.marks.get(i, "")
            # Said in words, or in a line mixing kinds of moves, by its symbol.
            symbol = {"forced": render.FORCED_SYMBOL, "ai": "🤖", "stand-in": "⏱"}.get(kind, "")
            assert render.MARKS.get(kind, "") in line or symbol in line
            if event.act == "give":
                assert names[event.to] in line
        checked += len(since)
    assert checked > 500


def test_a_trick_says_how_many_cards_it_holds_of_its_size():
    game = Game.from_shed_position([cards(h) for h in ("AS 7H", "KS 8H", "QS", "9D TD")], 1,
                                   0, names=["ann", "bob", "cy", "dee"])
    table = table_for(game)
    game.apply(game.legal_actions()[0])  # ann leads
    game.apply(next(a for a in game.legal_actions() if a.act == "play"))  # bob beats it
    fields = {f.name: f.value for f in render.table_embed(table).fields}
    assert "Trick · 2 of 4 cards" in fields


def test_red_suits_look_different_from_black_ones_wherever_cards_are_shown():
    game = Game.from_deck(shuffled_deck(6, "colours"), 0, names=LONG[:6])
    table = table_for(game)
    rng = random.Random(3)
    while game.phase is Phase.COLLECT:
        game.apply(rng.choice(game.legal_actions()))
    shown = [text_of(render.table_embed(table))]
    for seat in range(6):
        embed, view = render.hand_message(table, 1000 + seat)
        shown.append(text_of(embed))
        shown += [str(row) for row in view.to_components()]
    moves, _ = render.moves_message(table, 0)
    shown.append(text_of(moves))
    game.apply(game.legal_actions()[0])
    content, buttons = render.ping_message(table, table.user_to_act())
    shown += [content, str(buttons.to_components())]
    everything = "\n".join(shown)
    assert re.search(f"[{RED}]", everything) and re.search(f"[{BLACK}]", everything)
    # Red suits are emoji (red on either theme); black ones ask for text, never emoji.
    assert not re.search(f"[{RED}](?!\ufe0f)", everything)
    assert not re.search(f"[{BLACK}](?!\ufe0e)", everything)
    assert render.card_text(game.stacks[0][0]) != game.stacks[0][0].display


def test_the_table_message_shows_a_fingerprint_of_the_commitment_not_all_of_it():
    game = Game.from_deck(shuffled_deck(9, "x"), 0, names=LONG)
    table = table_for(game, seed="5eed" * 8)
    digest = hashlib.sha256(table.seed.encode()).hexdigest()
    text = text_of(render.table_embed(table))
    assert digest[:12] in text and digest not in text and table.seed not in text
    fair = render.fair_message(table).description
    assert digest in fair and table.seed not in fair


@pytest.mark.e2e
def test_moves_log_pages_hold_every_line_within_discords_limits():
    rng = random.Random(11)
    game = Game.from_deck(shuffled_deck(9, "log"), 0, names=MARKDOWN)
    table = table_for(game)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    lines = render.log_lines(table, observe(game, None))
    pages = []
    for page in range(100):
        embed, buttons = render.moves_message(table, page)
        pages.append(embed.description)
        assert len(embed.description) <= 4096 and len(embed) <= 6000
        assert len(buttons.to_components()) <= 5
        if "Later ▶" not in str(buttons.to_components()):
            break
    assert len(pages) > 1 and "\n".join(pages).split("\n") == lines


# --- through the fake Discord ---------------------------------------------------------------

CARD = "(?:10|[2-9AKQJ])[♠♥♦♣][\ufe0e\ufe0f]"
MARK_TEXT = re.compile(r" ⏱ \(stand-in\)| 🤖| ⏱| \(no choice\)|✱| · (✱ no choice|⏱ stand-in)"
                       r"(, (✱ no choice|⏱ stand-in))*$")


def parse_log(text: str) -> list[tuple[str, str, str, str | None]]:
    """``(who, act, card, to)`` for every move a moves log lists, oldest first."""
    events = []
    for line in text.split("\n"):
        if line.startswith("Dealt face up: "):
            for part in line.removeprefix("Dealt face up: ").split(", "):
                who, card = part.rsplit(" ", 1)
                events.append((who, "deal", card, None))
            continue
        if line.startswith(("**", "↳")):  # a heading, or why a move played itself
            continue
        who, _, moves = line.partition(": ")
        drawn = None
        for piece in MARK_TEXT.sub("", moves).split(", "):
            verb, _, rest = piece.partition(" ")
            act = {"drew": "draw", "gave": "give", "kept": "keep", "played": "play",
                   "took": "take"}[verb]
            card, _, to = rest.partition(" to ")
            card = drawn if card == "it" else card
            assert re.fullmatch(CARD, card or ""), piece
            events.append((who, act, card, to or None))
            drawn = card if act == "draw" else None
    return events


def expected_log(game: Game) -> list[tuple[str, str, str, str | None]]:
    names = game.names
    return [(names[e.seat], e.act, render.card_text(e.card),
             names[e.to] if e.to is not None else None) for e in game.history()]


async def test_moves_shows_a_spectator_the_whole_public_log_privately(fake_discord, tmp_path):
    from tests.nlk_driver import Driver, actor, database_rows, rebuild, running_bot, title

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(4))
        table = await driver.seat_and_start(LONG[0], LONG[1:])
        while " · collect" in title(table):
            await driver._collect_step(table)
        name = actor(table)
        for _ in range(40):  # enough shed turns for a log of more than one page
            name = await driver._play_from(name, await driver.open_hand(name, table), table)
        ix, response = await driver.click("zed", table, "Moves", expect=4)
        log = await ix.wait_message()
        assert response.ephemeral and log.visible_to == fake.user("zed").id
        footer = log.embeds[0]["footer"]["text"]
        version = int(re.search(r"move (\d+)", footer)[1])
        pages = [log.embeds[0]["description"]]
        while any(b.label == "◀ Earlier" for b in log.buttons()):
            await driver.click("zed", log, "◀ Earlier")
            pages.insert(0, log.embeds[0]["description"])
        for version_shown in log.versions:
            embed = version_shown.embeds[0]
            assert len(embed["description"]) <= 4096
            assert len(embed["title"]) + len(embed["description"]) + len(
                embed["footer"]["text"]) <= 6000
    table_id = int(table.embeds[0]["footer"]["text"].split()[1])
    hands, actions = database_rows(path, table_id)
    game = rebuild(hands[0], actions[hands[0]["id"]], version)
    assert len(game.history()) > 100 and len(pages) > 1
    # Exactly the public history, in order: nothing more (no hidden hand), nothing less.
    assert parse_log("\n".join(pages)) == expected_log(game)
    assert "Your hand" not in log.all_text()


async def test_fair_deal_and_ending_mid_hand_reveal_what_they_may(fake_discord, tmp_path):
    import json
    import subprocess
    import sys

    from tests.nlk_driver import Driver, database_rows, running_bot

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path, seed=None):  # the bot's own secret seeds
        driver = Driver(fake, random.Random(2))
        table = await driver.seat_and_start("ann", ["bob", "cy"])
        for _ in range(4):
            if " · collect" not in (table.embeds[0].get("title") or ""):
                break  # (a random deal may reach the shed phase sooner: mid-hand all the same)
            await driver._collect_step(table)
        table_id = int(table.embeds[0]["footer"]["text"].split()[1])
        hands, _ = database_rows(path, table_id)
        seed = hands[0]["seed"]
        digest = hashlib.sha256(seed.encode()).hexdigest()
        assert digest[:12] in table.text() and digest not in table.text()
        ix, response = await driver.click("zed", table, "Fair deal", expect=4)
        fair = json.dumps(response.data["embeds"], ensure_ascii=False)
        assert response.ephemeral and digest in fair and seed not in fair
        # The host ends the table mid-hand: the seed is public now. The announcement says in
        # one line what it proves (no command: it means nothing in Discord), and its **Fair
        # deal** shows the command privately, as the line says; the command checks out.
        ix = await fake.slash("ann", None, "nlk", "end")
        ended = await ix.wait_message()
        assert seed in ended.content and "\n" not in ended.content
        assert "python -m" not in ended.content and "nobody could pick" in ended.content
        ix, response = await driver.click("zed", ended, "Fair deal", expect=4)
        assert response.ephemeral
        private = response.data["embeds"][0]["description"]
        command = re.search(r"`python -m rules verify (\w+) (\w+) --players (\d)`", private)
        assert command and command[1] == seed and command[2] == digest
        await fake.wait_until(lambda: seed in table.text(), timeout=5)
        assert "ended before this hand finished" in table.text()
    done = subprocess.run([sys.executable, "-m", "rules", "verify", *command[0].strip("`")
                           .split()[4:]], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["deck"] == json.loads(hands[0]["deck"])
    fake.assert_clean()


# --- the README's sample ----------------------------------------------------------------------

def readme_sample() -> str:
    """The table message at six seats mid-shed, as text (markdown marks dropped): the sample
    README shows under "What the table message looks like"."""
    names = ["Ann", "Bob", "Csilla", "Dani", "Eszter", "Feri"]
    game = Game.from_deck(shuffled_deck(6, "readme"), 2, names=names)
    table = table_for(game, seed="readme-sample")
    table.id, table.hand_number, table.variant = 42, 3, Variant()
    rng = random.Random(0)
    while True:
        game.apply(rng.choice(game.legal_actions()))
        view = table.public_view()
        if view.phase is Phase.SHED and len(view.trick) == 3 and len(view.out) == 1:
            break
    embed = render.table_embed(table)
    lines = [embed.title, embed.description]
    for f in embed.fields:
        lines += [f.name, f.value]
    lines.append(embed.footer.text)
    buttons = [c["label"] for row in render.table_view(table).to_components()
               for c in row["components"]]
    lines.append(" ".join(f"[{label}]" for label in buttons))
    return re.sub(r"\*\*|\*|\\", "", "\n".join(lines))


def test_the_readme_shows_the_table_message_as_the_renderer_draws_it():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    section = readme.split("### What the table message looks like", 1)[1].split("\n#", 1)[0]
    sample = readme_sample()
    assert f"```text\n{sample}\n```" in section, sample
