"""Answers first on its own: a loop's step waits while taps are answered, and never long."""

import asyncio

from cogs.live.answers_first import AnswersFirst


async def test_a_step_goes_at_once_while_no_tap_is_answered():
    answers = AnswersFirst(most=5)
    await asyncio.wait_for(answers.turn(), 5)


async def test_a_step_goes_as_the_last_answer_is_done():
    answers = AnswersFirst(most=5)
    with answers.answering():
        with answers.answering():
            steps = [asyncio.ensure_future(answers.turn()) for _ in range(3)]
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.05)
        assert not any(step.done() for step in steps)  # one answer is still going
    await asyncio.wait_for(asyncio.gather(*steps), 5)


async def test_a_step_waits_at_most_its_time_while_taps_keep_coming():
    answers = AnswersFirst(most=0.05)
    loop = asyncio.get_running_loop()
    with answers.answering():
        started = loop.time()
        await asyncio.wait_for(answers.turn(), 2)
        assert loop.time() - started >= 0.04
        for _ in range(20):  # a steady stream: every wait ends by its time
            await answers.turn()
        assert not answers._waiting  # and none is left behind


async def test_a_step_cancelled_while_it_waits_leaves_the_others_waiting_as_before():
    answers = AnswersFirst(most=5)
    with answers.answering():
        gone, kept = asyncio.ensure_future(answers.turn()), asyncio.ensure_future(answers.turn())
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.sleep(0.02)
        assert gone.cancelled() and not kept.done()
    await asyncio.wait_for(kept, 5)
    assert not answers._waiting
