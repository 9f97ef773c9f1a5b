"""``python -m rules``: replay, simulate and verify from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .cards import check_players
from .deal import commitment, shuffled_deck
from .errors import NLKError
from .replay import read_records
from .simulate import simulate
from .variant import Variant

EXIT_OK, EXIT_REFUSED, EXIT_MALFORMED = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description="The NLK engine.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay nlk-replay/1 objects and print each result")
    p.add_argument("file", help="a replay file, or - for standard input")
    p.set_defaults(run=_replay)

    p = sub.add_parser("simulate", help="play random hands and report the speed")
    p.add_argument("--players", type=int, default=6)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", default="0")
    p.add_argument("--last-card", choices=("keep", "free"), default="keep")
    p.add_argument("--must-beat-in-suit", action="store_true")
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
    variant = Variant(args.last_card, args.must_beat_in_suit)
    print(json.dumps(simulate(args.players, args.games, args.seed, variant)))
    return EXIT_OK


def _verify(args: argparse.Namespace) -> int:
    ok = commitment(args.seed) == args.hash.strip().lower()
    result: dict[str, object] = {"seed": args.seed, "hash": args.hash, "ok": ok}
    if args.players is not None:
        result["deck"] = [str(c) for c in shuffled_deck(check_players(args.players), args.seed)]
    print(json.dumps(result))
    return EXIT_OK if ok else EXIT_REFUSED
