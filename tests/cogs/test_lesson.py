"""Through the fake Discord: ``/nlk learn``, the guided first hand. A scripted learner who
knows nothing of NLK reads the coach's words and taps the button they point at, and otherwise
taps at random; it finishes within 60 taps in English, Hungarian and French, every wrong tap
is explained and nothing is played, nothing is posted in the channel, and the coach names
every rule a first-timer needs. A restart in the middle resumes where the learner was."""

import random
import re

import pytest

from rules import lesson
from tests.learners import coach_line, description, learn, move_buttons, pointed_at
from tests.nlk_driver import running_bot

# The rules a first-timer needs (issue 34): drawing, giving, keeping and a move that plays
# itself (R3.2, R3.3), the last talon card (R3.4), beating in suit and trumping (R4.2),
# taking (R4.5), going out (R4.8), who loses (R4.9).
# Issue 45 adds what newcomers had to guess: the pack by player count (R1.2), who starts
# (R3.1), a trick's size (R4.3), who leads after a take of the only card (R4.7), and the
# footer's variants (R6.1, R6.2).
NEEDED = {"R1.2", "R3.1", "R3.2", "R3.3", "R3.4", "R4.2", "R4.3", "R4.5", "R4.7", "R4.8",
          "R4.9", "R6.1", "R6.2"}
WRONG = {"en": "❌", "hu": "❌", "fr": "❌"}
AGAIN = {"en": "Play the lesson again", "hu": "Lecke elölről", "fr": "Refaire la leçon"}


@pytest.mark.parametrize("locale", ["en-GB", "hu", "fr"])
async def test_a_newcomer_finishes_the_lesson_privately(fake_discord, tmp_path, locale):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("dee")
    fake.set_locale("dee", locale)
    async with running_bot(fake, path):
        message, taps, wrong, named = await learn(fake, "dee", random.Random(34))
        assert taps <= 60 and wrong >= 1, (taps, wrong)
        assert named >= NEEDED, NEEDED - named
        assert "</nlk new:" in description(message) or "/nlk" in description(message)
        assert message.attachments  # the real table's picture
        # Finished: /nlk learn says so, and offers the lesson again.
        ix = await fake.slash("dee", None, "nlk", "learn")
        again = await ix.wait_message()
        assert again.ephemeral
        assert any(b.custom_id.endswith(":again") for b in again.buttons())
    assert not fake.public_messages()
    fake.assert_clean()


async def test_a_restart_in_the_middle_resumes(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    rng = random.Random(7)
    fake.add_user("ann")
    async with running_bot(fake, path):
        message, _taps, _wrong, _named = await learn(fake, "ann", rng, stop_after=2)
        where = coach_line(message)
    async with running_bot(fake, path):
        # The old message's button still answers, at the step the learner reached.
        tap = pointed_at(message)
        assert tap is not None
        ix = await fake.click("ann", message, custom_id=tap.custom_id)
        assert (await ix.wait_response()).type == 7
        assert coach_line(message) != where
        moved_on = coach_line(message)
        # A fresh /nlk learn (the message expired) resumes there too.
        ix = await fake.slash("ann", None, "nlk", "learn")
        resumed = await ix.wait_message()
        assert coach_line(resumed) == moved_on
        # Skip to the shed phase, and back.
        skip = next(b for b in resumed.buttons() if b.custom_id.endswith(":skip"))
        ix = await fake.click("ann", resumed, custom_id=skip.custom_id)
        await ix.wait_response()
        assert f":{lesson.SHED}:" in move_buttons(resumed)[0].custom_id
        back = next(b for b in resumed.buttons() if b.custom_id.endswith(":back"))
        ix = await fake.click("ann", resumed, custom_id=back.custom_id)
        await ix.wait_response()
        assert ":0:" in move_buttons(resumed)[0].custom_id
    assert not fake.public_messages()
    fake.assert_clean()


def test_every_lesson_button_has_an_id_its_family_reads():
    """Each button of each step is read back by the lesson's template (within Discord's 100
    characters, at most 25 components), and a damaged id falls to the polite refusal."""
    from cogs.lesson import ids
    from cogs.lesson.handler import lesson_view
    from rules.i18n import Lang

    template, unknown = re.compile(ids.TEMPLATE), re.compile(ids.UNKNOWN)
    for step in range(lesson.STEPS + 1):
        view = lesson_view(lesson.situation(step), Lang.HU)
        assert 0 < len(view.children) <= 25
        for item in view.children:
            match = template.fullmatch(item.custom_id)
            assert match and len(item.custom_id) <= 100, item.custom_id
            lesson_name, at, act = ids.parse(match)
            assert (lesson_name, at) == (lesson.LESSON, step)
            assert act in ids.WAYS or ids.action_of(act) in lesson.situation(step).options \
                or act.removeprefix("rule.") in lesson.situation(step).rules
            assert not unknown.fullmatch(item.custom_id)
            assert families(item.custom_id) == ["LessonStep"], item.custom_id
    for damaged in ("nlkl:1:3:give.ZZ.1", "nlkl:1:x:draw", "nlkl:1:3:fly"):
        assert unknown.fullmatch(damaged) and not template.fullmatch(damaged)
        assert families(damaged) == ["UnknownLesson"], damaged


def families(custom_id):
    """The names of the button families (all of them) whose template reads ``custom_id``."""
    from cogs.lesson.routes import lesson_families
    from cogs.routes.families import families as table_families
    from cogs.routes.replay import replay_families
    from cogs.routes.seasons import season_families

    every = (*table_families(None), *replay_families(None), *season_families(None),
             *lesson_families(None))
    return [f.__name__ for f in every
            if f.__discord_ui_compiled_template__.fullmatch(custom_id)]


def test_the_lessons_picture_keeps_its_seats_in_place_from_step_to_step():
    """Issue 45: fitted to each step alone, the lesson's picture moved its seats as the
    stacks grew (one card far right, then a column, then two columns); drawn with the
    lesson's one layout, every seat stays where it was, and the picture keeps its size."""
    import dataclasses

    from cogs.lesson.handler import lesson_scene, situation
    from cogs.pictures.replay import draw_replay, layout_of
    from rules.i18n import Lang

    names = ("dee", *lesson.AI_NAMES)
    scenes = [lesson_scene(situation(step, names), lang, False)[0]
              for step in range(lesson.STEPS + 1) for lang in Lang]
    alone = {layout_of(dataclasses.replace(scene, layout=None)).places() for scene in scenes}
    assert len(alone) > 1  # what the newcomer saw: each step fitted alone moves the seats
    kept = [layout_of(scene) for scene in scenes]
    assert all(layout == kept[0] for layout in kept)
    assert len({layout.places() for layout in kept}) == 1
    assert len(kept[0].places()) == len(names)
    sizes = {(drawn.width, drawn.height) for drawn in
             (draw_replay(scene) for scene in scenes[::len(Lang)][:3])}
    assert len(sizes) == 1
