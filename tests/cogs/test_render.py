"""Rendering stays within Discord's limits for nine players and huge hands."""

import dataclasses
import json

from cogs import render
from rules import Game, Variant
from tests.helpers import table_for
from tests.rules.rules_helpers import cards


def shed_table(hands, trump="H", to_act=0):
    game = Game.from_shed_position([cards(h) for h in hands], "SHDC".index(trump), to_act,
                                   names=[f"player-{i}-with-a-rather-long-name" for i in
                                          range(len(hands))])
    return table_for(game, id=7, next_seats=[], variant=Variant(), hand_number=1)


def components(view):
    return view.to_components()


def test_a_43_card_lead_offers_every_card_within_five_rows():
    from rules import pack

    everything = [str(c) for c in pack(9)]
    big = " ".join(everything[:43])
    others = [everything[43 + i] for i in range(8)] + [""]
    table = shed_table([big, *others[:8]])
    embed, view = render.hand_message(table, 1000)
    rows = components(view)
    assert len(rows) <= 5
    offered = set()
    for row in rows:
        for item in row["components"]:
            assert len(item.get("custom_id", "")) <= 100
            if item["type"] == 3:
                assert len(item["options"]) <= 25
                offered |= {o["value"] for o in item["options"]}
            elif item["label"] != "Refresh":
                offered.add(item["custom_id"].rsplit(".", 1)[-1])
    assert offered == set(everything[:43])
    assert len(json.dumps(embed.to_dict())) < 6000


def test_nine_seats_fit_in_one_embed():
    table = shed_table([f"{r}S" for r in "AKQJT98765"][:9], to_act=0)
    embed = render.table_embed(table)
    total = len(embed.title or "") + len(embed.description or "") + sum(
        len(f.name) + len(f.value) for f in embed.fields) + len(embed.footer.text or "")
    assert total <= 6000 and len(embed.fields) <= 25
    assert all(len(f.value) <= 1024 for f in embed.fields)


def test_a_hand_summed_up_alike_is_drawn_alike():
    """``render.hand_shows`` lets an open hand skip drawing after a move elsewhere: over
    every state of whole hands, wherever it sums up two states of a seat alike, the hand
    drawn (less its footer) and its picture are alike too, in each language and style."""
    from cogs.live.open_hands import _looks, draw_hand
    from cogs.pictures import Pictures
    from rules.i18n import Lang
    from tests.helpers import play

    pictures = Pictures()
    seen: dict[object, object] = {}
    summed = alike = 0
    for seed, hints in ((11, False), (12, True)):
        for table in play(["ann", "bob", "cy", "dee"], seed):
            table = dataclasses.replace(table, hints=hints)
            for user_id in range(1000, 1004):
                shows = render.hand_shows(table, user_id)
                if shows is None:
                    continue
                summed += 1
                for lang, style in ((Lang.EN, "two"), (Lang.HU, "four")):
                    looks = _looks(*draw_hand(table, user_id, lang),
                                   pictures.hand_key(table, user_id, lang, style))
                    alike += seen.setdefault((lang, style, shows), looks) is not looks
                    assert seen[(lang, style, shows)] == looks, (user_id, shows)
    # Most states of a seat are summed up, and many of them alike (that is the saving).
    assert summed > 1000 and alike > summed


def test_the_last_round_read_from_the_end_is_the_round_of_the_folded_turns():
    """``last_round`` reads only the end of the history (it is drawn after every move), and
    finds what folding the whole hand into turns finds, in every state of whole hands."""
    from cogs.render.history import last_round, turns
    from tests.helpers import play

    def folded(history):
        shown = {}
        for turn in reversed(turns(history)):
            if turn.seat in shown:
                break
            shown[turn.seat] = turn
        return shown

    states = 0
    for seed, players in ((21, 3), (22, 5)):
        for table in play([f"p{i}" for i in range(players)], seed):
            history = table.game.history()
            assert last_round(history) == folded(history)
            states += 1
    assert states > 500
