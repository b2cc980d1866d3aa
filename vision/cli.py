"""tablectl vision: the camera pipeline from the command line (wired in tablectl/cli)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_vision_parser(sub: Any) -> Any:
    """The vision command and its subcommands; returns their parsers' container (tablectl/cli adds
    calibrate, which reads the table's config)."""
    vision = sub.add_parser("vision", help="the camera pipeline: read cards from photos and frames")
    vision_sub = vision.add_subparsers(dest="vision_command", required=True)
    read = vision_sub.add_parser(
        "read",
        help="print the cards found on each image: rank and suit (or unknown), face up or down, "
        "corner points, confidence",
    )
    read.add_argument(
        "images",
        nargs="+",
        help="image files or folders of images (a photo of 1,440 px or more is also read in tiles "
        "at finer scales, for cards small in it: up to a second or so for 12 megapixels)",
    )
    read.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    read.add_argument(
        "--backs-file",
        help="read as the table does, with the decks calibrated into this file (their backs, "
        "their index size and colours: tablectl vision calibrate --backs/--faces)",
    )
    read.set_defaults(func=cmd_vision_read)
    return vision_sub


def cmd_vision_read(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vision.backs import load_backs
    from vision.index_size import LARGER_INDEX, IndexSizeWatch, withheld
    from vision.reader import ACT_CONFIDENCE, CardReader
    from vision.sources import ImageFiles, Skipped

    reader = CardReader(backs=load_backs(Path(args.backs_file)) if args.backs_file else None)
    # the deck's index size unknown: watched for a jumbo index, as a camera does (vision/index_size.py)
    # (each image its own scene: every one looked at)
    measuring = reader.without_straight_edges()  # as an index's size is measured
    watch = (
        None
        if reader.index_size_known
        else IndexSizeWatch(measuring.for_deck(index_scale=LARGER_INDEX), every=1, standard=measuring)
    )
    skipped = 0
    for item in ImageFiles(args.images).frames():
        if isinstance(item, Skipped):
            skipped += 1
            if args.json:
                print(json.dumps({"image": item.label, "skipped": item.reason}))
            else:
                print(f"{item.label}: skipped: {item.reason}", file=sys.stderr)
            continue
        cards = reader.read(item.image)
        if watch is not None:
            verdict = watch.frame(item.image, cards)
            if verdict is not None:
                print(
                    f"{item.label}: the cards' index is larger than the reader's window (a jumbo index): "
                    "names withheld from here on; learn the deck's faces (tablectl vision calibrate "
                    "--faces) and read with --backs-file"
                    if verdict
                    else f"{item.label}: the cards' index fits the reader's window again: names given",
                    file=sys.stderr,
                )
            if watch.index_larger:
                cards = [withheld(card) for card in cards]
        if args.json:
            print(json.dumps({"image": item.label, "cards": [card.as_json() for card in cards]}))
            continue
        print(f"{item.label}: {len(cards)} card(s)")
        for card in cards:
            name = card.card or "unknown"
            sure = "" if card.confidence >= ACT_CONFIDENCE or card.card is None else " (unsure)"
            corners = " ".join(f"{x:.0f},{y:.0f}" for x, y in card.corners)
            print(f"  {name:7} face {card.facing.value:7} {card.confidence:.2f}{sure}  corners {corners}")
    return 1 if skipped else 0
