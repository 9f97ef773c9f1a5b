"""``python -m rules``: replay, simulate and verify from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from rules.cards import check_players
from rules.deal import commitment, shuffled_deck
from rules.errors import NLKError
from rules.i18n import N_
from rules.replay import read_records
from rules.simulate import simulate
from rules.variant import LAST_CARD_VALUES, Variant

EXIT_OK, EXIT_REFUSED, EXIT_MALFORMED = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description="The NLK engine.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay nlk-replay/1 objects and print each result")
    p.add_argument("file", help="a replay file, or - for standard input")
    p.set_defaults(run=_replay)

    p = sub.add_parser("simulate", help="play random hands and report the speed")
    add_deal_arguments(p, seed="0")
    p.add_argument("--games", type=int, default=1000)
    p.set_defaults(run=_simulate)

    p = sub.add_parser("verify", help="check a revealed seed against its commitment")
    p.add_argument("seed")
    p.add_argument("hash", help="the SHA-256 commitment shown when the hand was dealt")
    p.add_argument("--players", type=int, help="also print the deck this seed deals")
    p.set_defaults(run=_verify)

    for name in _EXTRA_COMMANDS:
        module = __import__(f"rules.{name}", fromlist=["add_command"])
        module.add_command(sub)

    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except NLKError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_MALFORMED


def add_deal_arguments(parser: argparse.ArgumentParser, *, seed: str | None,
                       seed_help: str = "the seed the hands are shuffled with",
                       words: Callable[[str], str] = N_) -> None:
    """The options of every command that deals hands: players, seed and the variants (§6);
    ``words`` translates their help (``python -m rules play`` speaks the player's language,
    the tools for developers English)."""
    _ = words
    parser.add_argument("--players", type=int, default=6, help=_("2 to 9 players (R6.3)"))
    parser.add_argument("--seed", default=seed, help=seed_help)
    parser.add_argument("--last-card", choices=LAST_CARD_VALUES, default="keep",
                        help=_("whether the last talon card must be kept (R6.1)"))
    parser.add_argument("--must-beat-in-suit", action="store_true",
                        help=_("no trumping while you can beat in suit (R6.2)"))


def variant_of(args: argparse.Namespace) -> Variant:
    """The variant chosen by the options ``add_deal_arguments`` added."""
    return Variant(args.last_card, args.must_beat_in_suit)


# Subcommands that live in their own modules, each with ``add_command(subparsers)``.
_EXTRA_COMMANDS: tuple[str, ...] = ("arena", "play")


def _replay(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as error:
        print(f"error: can't read {args.file}: {error}", file=sys.stderr)
        return EXIT_MALFORMED
    status = EXIT_OK
    for record in read_records(text):
        if record.replay is None:
            print(f"error: line {record.line}: {record.problem}", file=sys.stderr)
            status = EXIT_MALFORMED
            continue
        _, result = record.replay.run()
        print(json.dumps(result, ensure_ascii=False), flush=False)
        if result["error"] is not None and status == EXIT_OK:
            status = EXIT_REFUSED
    return status


def _simulate(args: argparse.Namespace) -> int:
    check_players(args.players)
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return EXIT_MALFORMED
    print(json.dumps(simulate(args.players, args.games, args.seed, variant_of(args))))
    return EXIT_OK


def _verify(args: argparse.Namespace) -> int:
    ok = commitment(args.seed) == args.hash.strip().lower()
    result: dict[str, object] = {"seed": args.seed, "hash": args.hash, "ok": ok}
    if args.players is not None:
        result["deck"] = [str(c) for c in shuffled_deck(check_players(args.players), args.seed)]
    print(json.dumps(result))
    return EXIT_OK if ok else EXIT_REFUSED
