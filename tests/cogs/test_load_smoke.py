"""The load benchmark (``python -m tests.load``) runs, and at a tiny size the bot stays clean;
with ``--learners`` it reports the coach steps and the hints as kinds of their own."""

import asyncio
import json
import os
import pstats

import pytest

from rules import lesson
from tests.load import LEARNING_COMMANDS, Profiler, public, run_load

LEARNER_KINDS = {"coach", "practice", "practice hint", "hint",
                 *(f"/nlk {name}" for name in LEARNING_COMMANDS)}


def told(report):
    """What went wrong, said in full if anything did: the tables' and learners' errors, the
    fake's refusals, the bot's log."""
    return f"{report['_failures']!r}\n{report['_violations']}\n{report['_bot_log'][-3000:]}"


@pytest.mark.e2e  # the bot in its own process, seconds of play
@pytest.mark.timeout(90)
async def test_three_small_tables_play_through_cleanly():
    report = await run_load(tables=3, players=2, seed=1, hands=1, think_ms=0, timeout=80)
    figures = public(report)
    assert json.loads(json.dumps(figures)) == figures  # it prints as one JSON object
    for key in ("tables", "players", "interactions", "first_response_ms", "memory_per_table_kb",
                "bot_cpu_ms_per_interaction", "seconds", "rate_limited", "violations"):
        assert key in figures, key
    assert set(figures["first_response_ms"]) == {"p50", "p90", "p95", "p99", "max"}
    assert figures["tables"] == 3 and figures["players"] == 2
    assert report["_failures"] == [] and figures["failed_tables"] == 0, told(report)
    assert figures["violations"] == 0, told(report)
    assert figures["rate_limited"] == 0
    assert figures["unanswered"] == 0, told(report)
    # Three two-player hands take well over a hundred taps, each answered.
    assert figures["interactions"] > 100
    ms = figures["first_response_ms"]
    assert 0 < ms["p50"] <= ms["p90"] <= ms["p95"] <= ms["p99"] <= ms["max"] < 3000, \
        (ms, told(report))
    assert figures["memory_per_table_kb"] is not None
    assert figures["bot_cpu_ms_per_interaction"] is not None
    assert figures["bot_cpu_ms_per_interaction"] > 0
    # The pictures are drawn in worker processes, as deployed: a part of the CPU is theirs.
    assert 0 < figures["workers_cpu_ms_per_interaction"] < figures["bot_cpu_ms_per_interaction"]
    # Without learners: nobody learned, and the kinds are the tables' alone.
    assert figures["learners"] == 0 and figures["learning"] is None
    assert not LEARNER_KINDS & set(figures["first_response_ms_by_kind"])


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_a_restart_mid_hand_reports_the_answers_after_it_apart():
    """``--restart-mid-hand``: the bot is stopped and started again while the table waits
    mid-hand, the hand plays to its end, and the answers after the restart are reported."""
    report = await run_load(tables=1, players=2, seed=4, hands=1, think_ms=0, timeout=100,
                            restart_mid_hand=True)
    figures = public(report)
    assert json.loads(json.dumps(figures)) == figures
    assert report["_failures"] == [] and figures["failed_tables"] == 0, told(report)
    assert figures["violations"] == 0 and figures["unanswered"] == 0, told(report)
    after = figures["after_restart"]
    assert after is not None and after["first_response_ms"]["p50"] > 0, after
    assert 0 < len(after["first_answers_ms"]) <= 10
    assert max(after["first_answers_ms"]) <= after["first_response_ms"]["max"]
    # Its processes are not those the run began with: no CPU figure.
    assert figures["bot_cpu_ms_per_interaction"] is None


@pytest.mark.e2e
@pytest.mark.timeout(90)
async def test_learners_beside_a_table_report_coach_steps_and_hints():
    report = await run_load(tables=1, players=2, seed=3, hands=1, think_ms=0, timeout=80,
                            learners=2, pictures="off")
    figures = public(report)
    assert json.loads(json.dumps(figures)) == figures
    assert report["_failures"] == [] and figures["failed_tables"] == 0, told(report)
    assert figures["violations"] == 0 and figures["unanswered"] == 0, told(report)
    kinds, learning = figures["first_response_ms_by_kind"], figures["learning"]
    assert figures["learners"] == 2 and learning["failed_learners"] == 0, told(report)
    assert learning["hint_tables"] == 1  # two learners at two-player tables
    # Each learner finished a lesson or a hand at least (and the warm-up's one more).
    assert learning["lessons_finished"] >= 2 and learning["practice_hands_finished"] >= 2
    assert kinds["/nlk learn"]["count"] == 3  # opened once each, then played again
    assert kinds["/nlk practice"]["count"] >= learning["practice_hands_finished"] + 1
    # A whole lesson is a right tap a step, and maybe wrong ones.
    finished = learning["lessons_finished"] + 1
    assert kinds["coach"]["count"] >= finished * lesson.STEPS
    # A practice player taps Hint before each hand's first move; at the hints table, the
    # player to act taps it a fifth of the time (a two-player hand has dozens of moves).
    assert kinds["practice hint"]["count"] >= learning["practice_hands_finished"] + 1
    assert kinds["practice"]["count"] > 0 and kinds["hint"]["count"] >= 1
    assert learning["coach_ms"] == kinds["coach"]
    assert learning["hint_ms"]["count"] == kinds["hint"]["count"] + \
        kinds["practice hint"]["count"]
    for ms in (learning["coach_ms"], learning["hint_ms"]):
        assert set(ms) == {"count", "p50", "p90", "p95", "p99", "max"}
        assert 0 < ms["p50"] <= ms["p90"] <= ms["p95"] <= ms["p99"] <= ms["max"] < 3000, \
            (ms, told(report))
    # Every interaction is counted under one kind.
    assert sum(k["count"] for k in kinds.values()) == figures["interactions"]


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_a_profiled_run_writes_a_profile_of_the_bot_and_its_workers(tmp_path, capsys):
    if Profiler.program() is None:
        pytest.skip("py-spy is not installed (the test extra installs it)")
    path = tmp_path / "profile.txt"  # py-spy's raw stacks: one line per stack, and a count
    report = await run_load(tables=1, players=2, seed=2, hands=1, think_ms=0, timeout=100,
                            profile=path)
    assert report["_failures"] == [] and report["violations"] == 0, told(report)
    said = capsys.readouterr().err
    assert f"the profile of the bot and its workers is in {path}" in said, said
    # Each stack starts with the processes it is in: the bot's, then a worker's if in one.
    # (A worker's command line ends with its priority: the module is the word after -m.)
    processes = {frame.split('"')[1].rsplit(" -m ", 1)[-1].split()[0]
                 for line in path.read_text().splitlines() for frame in line.split(";")
                 if frame.startswith("process ") and '"' in frame}
    assert processes == {"bot", "bot.ops.worker"}, processes  # the bot, and its drawers


@pytest.mark.e2e
@pytest.mark.timeout(180)
async def test_a_bot_started_again_is_profiled_again_into_a_file_of_its_own(tmp_path, capsys):
    if Profiler.program() is None:
        pytest.skip("py-spy is not installed (the test extra installs it)")
    path = tmp_path / "profile.txt"
    report = await run_load(tables=1, players=2, seed=3, hands=1, think_ms=0, timeout=160,
                            profile=path, restart_mid_hand=True)
    assert report["_failures"] == [] and report["violations"] == 0, told(report)
    after = tmp_path / "profile-start2.txt"
    said = capsys.readouterr().err
    for written in (path, after):
        assert f"the profile of the bot and its workers is in {written}" in said, said
    # Each file samples one start of the bot: the pids differ.
    bots = [{frame.split(":", 1)[0] for line in written.read_text().splitlines()
             for frame in line.split(";")[:1]} for written in (path, after)]
    assert len(bots[0]) == len(bots[1]) == 1 and bots[0] != bots[1], bots


@pytest.mark.e2e
@pytest.mark.timeout(120)
async def test_a_cpu_profiled_run_writes_the_bots_event_loop_by_its_cpu_time(tmp_path, capsys):
    path = tmp_path / "run.pstats"
    report = await run_load(tables=1, players=2, seed=2, hands=1, think_ms=0, timeout=100,
                            profile=path)
    assert report["_failures"] == [] and report["violations"] == 0, told(report)
    assert f"the CPU profile of the bot's event loop is in {path}" in capsys.readouterr().err
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    taps = [calls for (file, _line, name), (_prim, calls, *_rest) in stats.items()
            if file.endswith(os.path.join("cogs", "routes", "taps.py"))
            and name == "on_interaction"]
    # Every tap went through the profiled thread (a coroutine counts each time it resumes);
    # start-up did not (the profile begins once the bot is ready).
    assert taps and taps[0] >= report["interactions"], (taps, report["interactions"])
    assert not [key for key in stats if key[2] == "migrate"], "start-up is in the profile"


def test_each_process_and_each_start_has_a_profile_file_of_its_own(tmp_path):
    profiler = Profiler(tmp_path / "run.svg", tmp_path)
    profiler.starts = 1
    assert profiler.file_for(1, 1) == tmp_path / "run.svg"
    assert [profiler.file_for(k, 2).name for k in (1, 2)] == \
        ["run-process1.svg", "run-process2.svg"]
    profiler.starts = 2
    assert profiler.file_for(1, 1).name == "run-start2.svg"
    assert profiler.file_for(2, 2).name == "run-process2-start2.svg"


async def test_without_py_spy_a_profiled_run_says_so_and_goes_on(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(Profiler, "program", staticmethod(lambda: None))
    profiler = Profiler(tmp_path / "profile.svg", tmp_path)
    await profiler.start([os.getpid()])
    await profiler.stop()
    said = capsys.readouterr().err
    assert "py-spy is not installed" in said and "goes on without a profile" in said
    assert not (tmp_path / "profile.svg").exists()


async def test_a_process_py_spy_cannot_read_is_run_without_a_profile(tmp_path, capsys):
    if Profiler.program() is None:
        pytest.skip("py-spy is not installed (the test extra installs it)")
    other = await asyncio.create_subprocess_exec("sleep", "30")  # no Python in it
    try:
        profiler = Profiler(tmp_path / "profile.svg", tmp_path)
        await profiler.start([other.pid])
        await profiler.stop()
    finally:
        other.kill()
        await other.wait()
    said = capsys.readouterr().err
    assert "py-spy could not profile the bot (Error: " in said, said
    assert "goes on without a profile" in said
