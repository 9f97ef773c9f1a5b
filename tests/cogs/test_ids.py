"""Custom ids and the records of what the bot showed: stable across an upgrade."""

import re

import pytest

from cogs import render
from cogs.live.pings import PingRecord
from cogs.live.shown import ShownRecord, draw, fingerprint
from cogs.routes.families import families
from cogs.widgets.ids import Move, Seating, Target, button_id
from tests.helpers import play

FAMILIES = families(None)  # (no clicks come in here: no handler)


[UnknownItem] = [f for f in FAMILIES if f.__name__ == "UnknownItem"]


def families_of(custom_id: str) -> list[type]:
    """The families whose template takes ``custom_id``."""
    return [f for f in FAMILIES if f.__discord_ui_compiled_template__.fullmatch(custom_id)]


def custom_ids(view) -> list[str]:
    return [c["custom_id"] for row in view.to_components() for c in row["components"]]


def test_every_button_the_bot_draws_belongs_to_exactly_one_family():
    seen = set()
    names = ["Ann", "Bob", "Csilla", "Dani", "Eszter", "Feri"]
    for table in play(names, 11):
        views = [render.table_view(table), render.ping_message(table, table.seats[0].user_id)[1],
                 *(render.hand_message(table, s.user_id)[1] for s in table.seats)]
        for view in views:
            for custom_id in custom_ids(view):
                found = families_of(custom_id)
                assert len(found) == 1 and found[0] is not UnknownItem, (custom_id, found)
                seen.add(found[0].__name__)
    assert {"MoveButton", "SeatButton", "LookButton"} <= seen


def test_ids_of_earlier_versions_still_parse_to_the_same_values():
    # Sent by the bot before the families existed: they must keep working after an upgrade.
    for custom_id, family, values in [
            ("nlk:12:40:give.9D.3", "MoveButton", (12, 40, "9D.3")),
            ("nlks:7:5:play.S", "CardSelect", (7, 5, "S")),
            ("nlk:12:-:addai.STRONG", "SeatButton", (12, None, "STRONG")),
            ("nlk:12:-:moves.2", "LookButton", (12, None, "2")),
            ("nlk:0:-:stats.3", "PageButton", (0, None, "3"))]:
        [found] = families_of(custom_id)
        assert found.__name__ == family
        target = Target.of(found.__discord_ui_compiled_template__.fullmatch(custom_id))
        assert (target.table_id, target.version, target.arg) == values
    assert button_id(12, 40, Move.GIVE, "9D.3") == "nlk:12:40:give.9D.3"
    assert button_id(3, None, Seating.ADD_AI, "HEURISTIC") == "nlk:3:-:addai.HEURISTIC"


def test_an_unknown_action_is_claimed_only_to_be_refused():
    for custom_id in ("nlk:1:-:steal", "nlks:1:3:give.S", "nlk:1:-:joinx"):
        assert families_of(custom_id) == [UnknownItem]
    assert families_of("nlk:steal:1") == []  # not NLK-shaped: not the bot's
    huge = re.fullmatch(UnknownItem.__discord_ui_compiled_template__, "nlk:1:-:nope")
    assert huge is not None and Target.of(huge).valid
    [family] = families_of("nlk:99999999999999999999:-:join")
    match = family.__discord_ui_compiled_template__.fullmatch("nlk:99999999999999999999:-:join")
    assert not Target.of(match).valid  # refused as a bad id, not looked up


def test_records_written_before_they_were_json_are_still_read():
    assert ShownRecord.load("0123abcd 1700000000.5") == ShownRecord("0123abcd", 1700000000.5)
    record = ShownRecord("ffee", 12.25)
    assert ShownRecord.load(record.dump()) == record
    assert ShownRecord.load("garbage") is None
    assert PingRecord.load("55 3 17 1001") == PingRecord(55, 3, 17, 1001)
    assert PingRecord.load("55 3 -1 None") == PingRecord(55, 3, -1, None)
    written = ('{"channel": 55, "hand": 3, "version": 17, "user": 1001, "turn": 16, '
               '"deadline": 9.5, "reminder": true, "shed": false, "link": 7}')
    assert PingRecord.load(written) == PingRecord(55, 3, 17, 1001, 16, 9.5, True, False, 7)
    with pytest.raises(ValueError):
        PingRecord.load("garbage")


def test_the_fingerprint_is_of_what_was_sent():
    states = play(["Ann", "Bob", "Csilla"], 5)  # one table, changed as the hand goes on
    table = next(states)
    first = fingerprint(draw(table))
    assert fingerprint(draw(table)) == first  # the same drawing, the same fingerprint
    for _ in states:
        pass
    assert fingerprint(draw(table)) != first
