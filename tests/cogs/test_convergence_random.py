"""A randomised run through the fake Discord: taps by the right and the wrong people, double
taps on pings and on the table message, moves from the table message while a ping is live,
timers running out into stand-ins, restarts (clean, and hard: nothing written at the end,
as after SIGKILL) with hands left open from before them, /nlk table, and End table's
question raced against Next hand. Whenever the bot is
left alone, what Discord shows must catch up with the stored table. The seed is printed
(``NLK_CONVERGENCE_SEED`` replays one)."""

import asyncio
import contextlib
import os
import random
import re

import pytest

from cogs import render
from rules.i18n import Lang
from tests.backends import BACKENDS, database_target
from tests.nlk_driver import Driver, TimeMachine, actor, is_over, my_turn, running_bot, title

PLAYERS = ["ann", "bob", "cy"]
TIMER = 60
DEADLINE = re.compile(r"<t:(\d+):R>")
STEPS = 45
STEPS_POSTGRES = 25  # the same run on PostgreSQL, shorter: it adds a run, not the time of two


def stored(bot):
    [table] = bot.service.cached() or [None]
    return table


def moves_on(message):
    return [b for b in message.buttons()
            if b.custom_id and b.custom_id.split(":")[3].split(".")[0] in
            ("give", "draw", "keep")]


def live_pings(fake, channel=None):
    return [m for m in fake.public_messages(channel) if m.pinged_user_ids]


def shown_like_stored(fake, message, table) -> str | None:
    """Why the table message differs from a fresh drawing of the stored table (None: it
    does not)."""
    drawn = render.table_embed(table, Lang.EN)
    embed = message.embeds[0]
    if embed.get("title") != drawn.title:
        return f"title {embed.get('title')!r} != {drawn.title!r}"
    if embed.get("description", "") != (drawn.description or ""):
        return "description"
    ids = [b.custom_id for b in message.buttons()]
    fresh = [item.custom_id for item in render.table_view(table, Lang.EN).children]
    if ids != fresh:
        return f"buttons {ids} != {fresh}"
    return None


def pings_wrong(fake, table, now, channel=None) -> str | None:
    """Why the live pings are not exactly one, for the person to act, current (None: they
    are)."""
    pings = live_pings(fake, channel)
    user = table.user_to_act()
    wanted = user is not None and table.ai_to_act() is None and not table.covered()
    if not wanted:
        return f"pings {[p.content for p in pings]} with nobody to ping" if pings else None
    if [p.pinged_user_ids for p in pings] != [[user]]:
        return f"pings {[(p.pinged_user_ids, p.content[:50]) for p in pings]} for {user}"
    [ping] = pings
    if table.message_id is not None and f"/{table.message_id})" not in ping.content:
        return f"ping links elsewhere than the table message {table.message_id}"
    versions = {b.custom_id.split(":")[2] for b in ping.buttons() if b.custom_id} - {"-"}
    if versions and versions != {str(table.game.version)}:
        return f"ping buttons at {versions}, table at {table.game.version}"
    found = DEADLINE.search(ping.content)
    if found and int(found[1]) < now:
        return f"ping deadline {found[1]} passed (now {now:.0f})"
    return None


def hands_wrong(fake, table, players=PLAYERS, channel=None) -> str | None:
    """Why a player's newest open hand does not show whose turn it is now (None: every one
    does), opened before a restart or after: its token is kept in its record."""
    for name in players:
        hands = [m for m in fake.visible_to(name, channel) if m.visible_to is not None
                 and m.embeds and (m.embeds[0].get("title") or "").startswith("Your")]
        if not hands or " · shed" not in title_of(table):
            continue
        theirs = table.user_to_act() == fake.user(name).id and table.ai_to_act() is None
        if my_turn(hands[-1]) and not theirs:
            return f"{name}'s hand shows their turn"
    return None


def title_of(table) -> str:
    return render.table_embed(table, Lang.EN).title or ""


async def converged(fake, bot, message, clock, players=PLAYERS, channel=None) -> None:
    """Wait for what Discord shows to catch up with the stored table; fail with why not."""
    why: list[str | None] = [None]

    def check() -> bool:
        table = stored(bot)
        if table is None:
            why[0] = "no table"
            return False
        why[0] = shown_like_stored(fake, message, table) or \
            pings_wrong(fake, table, clock(), channel) or \
            hands_wrong(fake, table, players, channel)
        return why[0] is None

    try:
        await fake.wait_until(check, timeout=15)
    except AssertionError:
        nlk = bot.get_cog("NLK")
        owners = {live.id: {name: shown.behind(live.newest)
                            for name, shown in live.kinds.items()}
                  for live in nlk.publisher.tables}
        raise AssertionError(f"did not converge: {why[0]}; owners: {owners}") from None


async def hard_stop(bot) -> None:
    """Stop as SIGKILL would: the bot writes nothing down at the end (what the table
    messages show, the live pings); only its own tasks are stopped."""
    nlk = bot.get_cog("NLK")
    notes = nlk.publisher.notes

    # The records on their way are lost, as with SIGKILL: their writer is stopped before
    # the database closes (left running, it would hold the database's write lock in a
    # connection closed under it, and the next start would wait on it).
    notes._stopping = True
    notes._writes.clear()
    if notes._writer is not None:
        notes._writer.cancel()
        await asyncio.gather(notes._writer, return_exceptions=True)

    async def write_nothing() -> None:
        pass

    nlk.publisher.close = write_nothing  # the stop then ends the bot's lifetime only


class Restartable:
    """The bot under test, in an exit stack of its own, closed and made anew at each
    restart; the database outlives it."""

    def __init__(self, stack: contextlib.AsyncExitStack, make) -> None:
        self.stack, self.make = stack, make
        self.context: contextlib.AsyncExitStack | None = None
        self.bot = None

    async def start(self):
        self.context = contextlib.AsyncExitStack()
        await self.stack.enter_async_context(self.context)
        self.bot = await self.context.enter_async_context(self.make())
        return self.bot

    async def restart(self, hard: bool):
        """A clean stop, or with ``hard`` one as SIGKILL would, then a new start."""
        if hard:
            await hard_stop(self.bot)
        await self.context.aclose()
        await asyncio.sleep(1.0)  # restarts in a row would pass the global rate limit
        return await self.start()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_what_discord_shows_converges_whatever_happens(fake_discord, tmp_path, backend):
    seed = int(os.environ.get("NLK_CONVERGENCE_SEED") or random.randrange(10**6))
    print(f"convergence seed: {seed} (NLK_CONVERGENCE_SEED={seed} replays it)")
    rng = random.Random(seed)
    fake = fake_discord
    clock = TimeMachine()
    driver = Driver(fake, random.Random(seed))
    kinds = []
    async with contextlib.AsyncExitStack() as stack:
        path = await stack.enter_async_context(database_target(backend, tmp_path))
        runner = Restartable(stack, lambda: running_bot(fake, path, clock=clock, seed=seed))
        bot = await runner.start()
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=TIMER)
        for _step in range(STEPS if backend == "sqlite" else STEPS_POSTGRES):
            held = stored(bot)
            assert held is not None
            who = actor(table)
            kind = rng.choice(["right", "right", "wrong", "double-ping", "double-table",
                               "timeout", "restart", "end-race", "table"])
            kinds.append(kind)
            if is_over(table):
                kind = "end-race"
            if kind == "right" and who is not None:
                if " · collect" in title(table) and moves_on(table):
                    ix = await fake.click(who, table,
                                          custom_id=rng.choice(moves_on(table)).custom_id)
                    await ix.wait_response()
                else:
                    hand = await driver.open_hand(who, table)
                    plays = [b for b in hand.buttons() if b.label != "Refresh"]
                    if my_turn(hand) and plays:
                        # A stand-in may take the turn first, as it may from a person.
                        ix = await fake.click(who, hand, custom_id=plays[0].custom_id)
                        await ix.wait_response()
            elif kind == "wrong" and moves_on(table):
                other = rng.choice([p for p in PLAYERS if p != who])
                ix = await fake.click(other, table, custom_id=moves_on(table)[0].custom_id)
                response = await ix.wait_response()
                if not response.ephemeral:
                    # The table message trailed the game (its paced edit waits for the
                    # channel): the answer brings it up to date, the refusal follows
                    # privately.
                    assert response.type == 7, response
                    [refusal] = await ix.wait_followups()
                    assert refusal.ephemeral, refusal.text()
            elif kind == "double-ping" and who is not None:
                pings = [p for p in live_pings(fake) if moves_on(p)]
                if pings:
                    button = rng.choice(moves_on(pings[-1]))
                    taps = await asyncio.gather(*(fake.click(who, pings[-1],
                                                             custom_id=button.custom_id)
                                                  for _ in range(2)))
                    for tap in taps:
                        await tap.wait_response()
            elif kind == "double-table" and who is not None and moves_on(table):
                button = rng.choice(moves_on(table))
                taps = await asyncio.gather(*(fake.click(who, table, custom_id=button.custom_id)
                                              for _ in range(2)))
                for tap in taps:
                    await tap.wait_response()
            elif kind == "timeout":
                clock.advance(TIMER + 1)
            elif kind == "restart":
                bot = await runner.restart(hard=rng.random() < 0.5)
            elif kind == "end-race" and is_over(table):
                ix, _asked = await driver.click("ann", table, "End table", expect=4)
                question = await ix.wait_message()
                await driver.click(rng.choice(["bob", "cy"]), table, "Next hand")
                ix, refused = await driver.click("ann", question, "End the table", expect=4)
                # Refused: as out of date, or (once the next hand is dealt) as not ended.
                content = refused.data["content"]
                assert "out of date" in content or "was not ended" in content, content
                assert stored(bot) is not None and stored(bot).is_open
            elif kind == "table":  # /nlk table: the table message moves to the bottom
                ix = await fake.slash(rng.choice(PLAYERS), None, "nlk", "table", {})
                table = await ix.wait_message()
            try:
                await converged(fake, bot, table, clock)
            except AssertionError as error:
                history = [(m.id, m.content[:24], m.deleted)
                           for m in fake.messages(include_deleted=True)
                           if m.visible_to is None][-8:]
                raise AssertionError(f"after {' '.join(kinds)}: {error}; {history}") from None
    print("steps:", " ".join(kinds))


# --- the same in a group DM, where the bot speaks only through taps' tokens ----------------

GROUP_STEPS = {"sqlite": 20, "postgresql": 12}


def group_pings_wrong(members, table) -> str | None:
    """Why the newest turn ping the group DM sees is not for the person to act (None: it
    is, or nobody is to be pinged)."""
    user = table.user_to_act()
    if user is None or table.ai_to_act() is not None or table.covered():
        return None
    pings = [m for m in members[0].app_messages() if m.visible_to is None and m.pinged_user_ids]
    if not pings or pings[-1].pinged_user_ids != [user]:
        return f"newest ping {pings[-1].content[:60] if pings else None!r} is not for {user}"
    return None


async def group_converged(fake, bot, members) -> None:
    """Wait for the table message at the bottom of the group DM, the newest ping and the
    open hands to show the stored table; fail with why not."""
    why: list[str | None] = [None]

    def check() -> bool:
        table = stored(bot)
        why[0] = shown_like_stored(fake, members[1].table_message(), table) or \
            group_pings_wrong(members, table) or hands_wrong(fake, table)
        return why[0] is None

    try:
        await fake.wait_until(check, timeout=15)
    except AssertionError:
        raise AssertionError(f"did not converge: {why[0]}") from None


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_group_dm_table_converges_at_every_tap(fake_discord, tmp_path, backend):
    """Taps by the right and the wrong people, double taps, tokens lapsing with the turn
    timer, hard and clean restarts, /nlk table: after every tap, the table message a person
    finds at the bottom of the group DM shows the stored table, the newest ping is for the
    person to act, and open hands follow; the bot never touches the channel."""
    from tests.groupdm_member import group_dm

    seed = int(os.environ.get("NLK_CONVERGENCE_SEED") or random.randrange(10**6))
    print(f"convergence seed: {seed} (NLK_CONVERGENCE_SEED={seed} replays it)")
    rng = random.Random(seed)
    fake = fake_discord
    members = group_dm(fake, PLAYERS, installed=["ann"])
    by_name = {m.name: m for m in members}
    clock = TimeMachine()
    driver = Driver(fake, random.Random(seed))
    kinds = []
    async with contextlib.AsyncExitStack() as stack:
        path = await stack.enter_async_context(database_target(backend, tmp_path))
        runner = Restartable(stack, lambda: running_bot(fake, path, clock=clock, seed=seed,
                                                        dev_guild=None))
        bot = await runner.start()
        await bot.tree.sync()
        ix = await by_name["ann"].slash("nlk", "new", {"seats": 3, "turn_timer": TIMER})
        await ix.wait_message()
        for name in ("bob", "cy"):
            table = by_name[name].table_message()
            ix = await by_name[name].click(table, "Join")
            await ix.wait_response()
        ix = await by_name["ann"].click(by_name["ann"].table_message(), "Start (host)")
        await ix.wait_response()
        for _step in range(GROUP_STEPS[backend]):
            table = by_name["ann"].table_message()
            who = actor(table)
            kind = rng.choice(["right", "right", "right", "wrong", "double-table", "lapse",
                               "restart", "table"])
            kinds.append(kind)
            if is_over(table):
                break
            if kind == "lapse":  # nobody taps for longer than a token and a turn last
                fake.clock.advance(16 * 60)
                clock.advance(16 * 60)
                await asyncio.sleep(0.3)
            elif kind == "restart":
                bot = await runner.restart(hard=rng.random() < 0.5)
            elif kind == "table":
                ix = await by_name["ann"].slash("nlk", "table")
                await ix.wait_response()
            elif kind == "wrong" and moves_on(table):
                other = by_name[rng.choice([p for p in PLAYERS if p != who])]
                ix = await other.click(table, custom_id=moves_on(table)[0].custom_id)
                # Refused privately; the copy tapped is brought up to date in place.
                answer = await ix.wait_response()
                assert answer.ephemeral or (answer.type == 7 and
                                            (await ix.wait_followups(1))[0].ephemeral)
            elif kind == "double-table" and who is not None and moves_on(table):
                button = rng.choice(moves_on(table))
                taps = await asyncio.gather(*(by_name[who].click(
                    table, custom_id=button.custom_id) for _ in range(2)))
                for tap in taps:
                    await tap.wait_response()
            if who is not None and kind in ("right", "lapse", "restart"):
                # The person the table names plays (after a lapse or a restart the table
                # may be behind: their tap is what brings it up to date).
                if moves_on(table):
                    ix = await by_name[who].click(
                        table, custom_id=rng.choice(moves_on(table)).custom_id)
                    await ix.wait_response()
                else:
                    hand = await driver.open_hand(who, table)
                    plays = [b for b in hand.buttons() if b.label != "Refresh"]
                    if my_turn(hand) and plays:
                        ix = await by_name[who].click(hand, custom_id=plays[0].custom_id)
                        await ix.wait_response()
            try:
                await group_converged(fake, bot, members)
            except AssertionError as error:
                raise AssertionError(f"after {' '.join(kinds)}: {error}") from None
    assert fake.refused.get("group_dm_channel", 0) == 0
    assert fake.refused.get("followup_limit", 0) == 0
    print("steps:", " ".join(kinds))
