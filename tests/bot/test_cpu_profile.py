"""The bot's CPU profile for the load benchmark (``NLK_CPU_PROFILE``): started once, written
once, from the settings; a profile it can't write is logged, never raised."""

import logging
import pstats

from bot.ops.cpu_profile import CPUProfile
from bot.settings import load_settings


def busy(n: int) -> int:
    return sum(i * i for i in range(n))


def test_the_profile_counts_what_ran_after_its_start_and_is_written_once(tmp_path):
    path = tmp_path / "bot.pstats"
    profile = CPUProfile(str(path))
    busy(10)  # before the start: not in it
    profile.start()
    profile.start()  # the second ready (a reconnection) changes nothing
    for _ in range(3):
        busy(1000)
    profile.write()
    calls = {name: ncalls for (_file, _line, name), (_prim, ncalls, *_rest)
             in pstats.Stats(str(path)).stats.items()}  # type: ignore[attr-defined]
    assert calls["busy"] == 3
    path.unlink()
    profile.write()  # written once
    assert not path.exists()


def test_no_profile_is_asked_for_without_the_setting(tmp_path):
    assert load_settings({"DISCORD_TOKEN": "x"}, dotenv=None).cpu_profile is None
    asked = load_settings({"DISCORD_TOKEN": "x", "NLK_CPU_PROFILE": str(tmp_path / "p")},
                          dotenv=None)
    assert asked.cpu_profile == str(tmp_path / "p")
    profile = CPUProfile(None)
    profile.start()
    profile.write()
    assert list(tmp_path.iterdir()) == []


def test_a_profile_it_cannot_write_is_logged_not_raised(tmp_path, caplog):
    profile = CPUProfile(str(tmp_path / "no such folder" / "bot.pstats"))
    profile.start()
    busy(10)
    with caplog.at_level(logging.WARNING, logger="bot.ops.cpu_profile"):
        profile.write()
    assert "could not write the CPU profile" in caplog.text
