"""The installed bot, from a wheel, run from a folder outside the checkout (``.ci/run``):

    python -m tests.installed.smoke

``bot``, ``cogs`` and ``rules`` must come from site-packages; only ``tests`` (the fake
Discord and the driver) comes from the folder this runs in. It checks ``--help``, plays a
few games with ``python -m rules simulate``, and plays one whole hand through the fake
Discord with ``python -m bot`` as deployed. Exit 0 when everything worked.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path


def check(ok: bool, what: str) -> None:
    if not ok:
        print(f"smoke test failed: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "DISCORD_TOKEN"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=120, env=env)


def installed_not_checked_out() -> None:
    import bot
    import cogs
    import rules

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    for package in (bot, cogs, rules):
        where = Path(package.__file__ or "").resolve()
        check(site in where.parents, f"{package.__name__} is imported from {where.parent}")
    from bot.db.sqlite import MIGRATIONS, migration_files

    check(site in MIGRATIONS.resolve().parents and len(migration_files()) >= 7,
          f"the migrations ship with the package ({MIGRATIONS})")


async def one_hand() -> None:
    from tests.fakediscord import FakeDiscord
    from tests.nlk_driver import Driver, spawn_bot

    with tempfile.TemporaryDirectory(prefix="nlk-smoke-") as folder:
        async with FakeDiscord() as fake:
            log = open(Path(folder) / "bot.log", "wb")  # noqa: SIM115 (closed below)
            process = await spawn_bot(fake, Path(folder) / "nlk.sqlite3", stderr=log)
            try:
                await fake.wait_for_bot(timeout=60)
                driver = Driver(fake, random.Random(4))
                table = await driver.seat_and_start("ann", ["bob", "cid"])
                await driver.play_hand(table)
                check(" · over" in table.embeds[0].get("title", ""),
                      f"a whole hand through the fake Discord ({driver.actions} taps)")
            finally:
                process.terminate()
                code = await asyncio.wait_for(process.wait(), 30)
                log.close()
            text = (Path(folder) / "bot.log").read_text()
            check(code == 0 and "Traceback" not in text, f"the bot stopped cleanly:\n{text}")


def main() -> None:
    installed_not_checked_out()
    done = run("-m", "bot", "--help")
    check(done.returncode == 0 and done.stdout.startswith("usage: python -m bot"),
          "python -m bot --help")
    done = run("-m", "bot", "--version")
    check(done.returncode == 0 and done.stdout.startswith("nlk-bot "), done.stdout.strip())
    done = run("-m", "rules", "simulate", "--players", "4", "--games", "3", "--seed", "1")
    check(done.returncode == 0, f"python -m rules simulate{done.stderr}")
    asyncio.run(one_hand())


if __name__ == "__main__":
    main()
