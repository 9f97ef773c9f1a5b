"""Taps reach their family straight (``cogs.routes.taps``), and neither a tap nor a picture
sent leaves cyclic garbage behind: with it, Python's collector stopped the event loop every
few seconds under load (``cogs.transport.files``)."""

import contextlib
import gc
import io
import random
from collections.abc import Iterator

import discord

from cogs.routes.taps import tapped
from cogs.transport.files import MemoryFile
from tests.helpers import PLAYERS, open_every_hand, play_until, to_the_shed_phase
from tests.nlk_driver import Driver, is_over, running_bot

PNG = b"\x89PNG\r\n\x1a\n"


@contextlib.contextmanager
def collector_keeping() -> Iterator[list]:
    """The cyclic collector off, and what it finds when run (``gc.collect()``) kept in the
    list given (``gc.garbage``) instead of freed."""
    gc.collect()
    gc.garbage.clear()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def buffers_in(garbage: list) -> list:
    """The buffers of bytes among ``garbage`` kept alive by their own ``close``, as
    ``discord.File`` leaves them once sent (a buffer can also be garbage for another reason:
    held by a request cancelled on a busy machine, say, in its exception's frames)."""
    return [o for o in garbage if isinstance(o, io.BytesIO) and
            getattr(vars(o).get("close"), "__self__", None) is o]


def views_in(garbage: list) -> list:
    """The views among ``garbage`` kept alive by their own items, as discord.py's view store
    leaves the view it builds from a tapped message (a view can also be garbage for another
    reason: held in the frames of a redraw cancelled on a busy machine, say)."""
    return [o for o in garbage if isinstance(o, discord.ui.View) and
            any(item.view is o for item in o.children)]


async def test_taps_and_the_pictures_they_send_leave_no_cycles(fake_discord, tmp_path):
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        driver = Driver(fake, random.Random(3))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)

        async def collect_and_shed() -> None:
            await to_the_shed_phase(driver, table)
            hands = await open_every_hand(driver, table)
            for _turn in range(2 * len(PLAYERS)):  # taps on open hands, each redrawn
                tapped: set[str] = set()
                await play_until(driver, hands, lambda t=tapped: bool(t) or is_over(table),
                                 tapped=tapped)

        with collector_keeping() as garbage:
            await collect_and_shed()
            gc.collect()
            assert driver.actions > 3 and driver.hands_opened >= len(PLAYERS)
            assert views_in(garbage) == []
            assert buffers_in(garbage) == []


def test_a_picture_file_sent_and_closed_leaves_no_cycle():
    def send(file: discord.File) -> None:
        file.reset(seek=0)
        assert file.fp.read()[:8] == PNG
        file.fp.close()  # what a form may do while the request can still retry: nothing
        file.close()  # the request is done

    with collector_keeping() as garbage:
        file = MemoryFile(PNG + b"ours", "a.png", description="the picture")
        send(file)
        assert not file.fp.closed and file.fp.getvalue() == PNG + b"ours"
        del file
        gc.collect()
        assert buffers_in(garbage) == []
        send(discord.File(io.BytesIO(PNG + b"py"), filename="a.png"))
        gc.collect()
        assert len(buffers_in(garbage)) == 1  # discord.py's own File: the cycle


def test_a_tap_is_made_as_the_component_it_is():
    button, select = tapped(2, "nlk:b:1"), tapped(3, "nlk:s:1")
    assert isinstance(button, discord.ui.Button) and button.custom_id == "nlk:b:1"
    assert isinstance(select, discord.ui.Select) and select.custom_id == "nlk:s:1"
    assert tapped(5, "nlk:u:1") is None  # a user select: the bot sends none
