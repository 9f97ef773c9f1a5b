"""A bot killed mid-play and started again respects the request budgets its predecessor spent:
Discord still counts the dead process's edits in each channel's window."""

import asyncio
import random
import time

from cogs.transport import pacer
from cogs.transport.pacer import Kind, Pacer
from tests.nlk_driver import Driver, actor, is_over, spawn_bot, title

TABLES = 3
RESTARTS = 2
PLAY_SECONDS = 4.0  # played flat out: every turn pings, each channel's budget is in use


async def play_for(driver: Driver, table, host: str, seconds: float) -> None:
    """Tap this table's turns as fast as the bot answers, hand after hand, for ``seconds``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        if is_over(table):
            await driver.click(host, table, "Next hand")
        elif " · collect" in title(table):
            await collect_step(driver, table)
        else:
            await shed_turn(driver, table)


async def shed_turn(driver: Driver, table) -> None:
    """One person's turn in phase two, from their hand. One turn, not the phase: a whole
    shed phase played out would run the window past its end, and the kill would no longer
    come right after a flat-out burst."""
    name = actor(table)
    if name is None:  # the hand just ended: the table message is on its way
        await driver.fake.wait_until(lambda: is_over(table) or actor(table) is not None,
                                     timeout=10)
        return
    hand = await driver.open_hand(name, table)
    if await driver._play_from(name, hand, table) is None:
        await driver.fake.wait_until(lambda: is_over(table), timeout=10)


async def collect_step(driver: Driver, table) -> None:
    """One phase-one move from the table message. Right after a kill the message may still
    show a state the dead process moved past (its last paced edit died with it): the tap is
    then refused privately, as out of date or as someone else's turn, and the new process
    brings the message up to date."""
    buttons = [b for b in table.buttons() if b.label not in ("My stack", "Moves", "Fair deal")]
    ix = await driver.fake.click(actor(table), table,
                                 custom_id=driver.rng.choice(buttons).custom_id)
    response = await ix.wait_response()
    if response.type != 7:
        content = response.data["content"]
        assert response.ephemeral and ("out of date" in content or "'s turn" in content), \
            response.data
        await asyncio.sleep(0.2)


async def test_a_bot_killed_mid_play_restarts_without_a_429(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    drivers, tables = [], []
    process = await spawn_bot(fake, path)
    try:
        session = await fake.wait_for_bot(timeout=30)
        for n in range(TABLES):
            driver = Driver(fake, random.Random(n), channel=fake.add_channel(f"table-{n}"))
            table = await driver.seat_and_start(f"ann{n}", [f"bob{n}", f"cy{n}"])
            drivers.append(driver)
            tables.append(table)
        for _ in range(RESTARTS):
            await asyncio.gather(*(play_for(d, t, f"ann{n}", PLAY_SECONDS)
                                   for n, (d, t) in enumerate(zip(drivers, tables, strict=True))))
            process.kill()  # SIGKILL mid-play, right after the last answers
            await process.wait()
            await fake.wait_for_disconnect(session)
            process = await spawn_bot(fake, path)
            session = await fake.wait_for_bot(timeout=30, after=session)
        await asyncio.gather(*(play_for(d, t, f"ann{n}", PLAY_SECONDS)
                               for n, (d, t) in enumerate(zip(drivers, tables, strict=True))))
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert fake.rate_limited == []
    assert fake.violations == []


async def test_a_spent_budget_holds_the_channel_a_whole_window_from_when_it_was_spent(
        monkeypatch):
    """A channel's budget counted as used (another process may have used it: at a start,
    in a hand-over) holds the channel's next request a whole window from then, though a
    request this process made earlier would leave the window sooner."""
    monkeypatch.setattr(pacer, "WINDOW", 0.5)
    paced = Pacer(per_channel=5)
    async with paced.use(1, Kind.WRITE):
        pass  # one request of its own
    await asyncio.sleep(0.3)
    paced.spend({1})
    spent = time.monotonic()
    async with paced.use(1, Kind.WRITE):
        waited = time.monotonic() - spent
    assert waited >= 0.45  # a slow machine only waits longer


async def test_a_stop_lets_its_last_seconds_requests_pass_before_the_next_start(monkeypatch):
    """A start sends its first requests (logging in, the commands) unpaced, and Discord
    counts them with the requests of the process that stopped just before: the stopping one
    waits until no more than ``leave`` of its own are in the global window. A quiet one
    stops at once."""
    quiet = Pacer()
    quiet._global.recent.extend([time.monotonic()] * 30)

    async def no_sleep(seconds):
        raise AssertionError(f"a quiet stop waited {seconds} s")

    monkeypatch.setattr(pacer.asyncio, "sleep", no_sleep)
    await quiet.let_pass(leave=35)
    monkeypatch.undo()

    busy = Pacer()
    start = time.monotonic()
    busy._global.recent.extend([start - 0.9] * 10 + [start] * 30)  # 40 in the last second
    await asyncio.wait_for(busy.let_pass(leave=35), 10)
    assert time.monotonic() - start >= 0.1  # until the oldest 10 were out of the window
    now = time.monotonic()
    assert sum(1 for t in busy._global.recent if now - t <= 1.0) <= 35
