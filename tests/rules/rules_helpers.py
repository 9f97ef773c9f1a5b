"""Small builders for engine tests."""

from rules import Action, Card, Game, Variant, pack


def cards(text):
    return [Card.parse(c) for c in text.split()]


def deck(players, top):
    """The pack for ``players`` with ``top`` (a string of cards) first, the rest in pack order."""
    first = cards(top)
    return first + [c for c in pack(players) if c not in first]


def act(text):
    return Action.parse(text)


def play_all(game, script):
    """Apply each action of a ``;``-separated script."""
    for step in script.split(";"):
        if step.strip():
            game.apply(act(step.strip()))
    return game


def shed(hands, trump, to_act=0, **variant):
    """A fresh trick to be led by ``to_act``, from hands written as strings."""
    return Game.from_shed_position([cards(h) for h in hands], "SHDC".index(trump), to_act,
                                   variant=Variant(**variant))


def collect(stacks, talon, to_act=0, **variant):
    return Game.from_collect_position([cards(s) for s in stacks], cards(talon), to_act,
                                      variant=Variant(**variant))
