"""Train the corner-index classifier that vision/index_reader.py runs, and export it to ONNX.

    .venv/bin/pip install -e '.[train]'     # torch 2.13.0 CPU (the local wheel), onnx, pillow, resvg-py
    apt-get install fonts-freefont-ttf fonts-urw-base35 fonts-crosextra-carlito \
        fonts-crosextra-caladea fonts-open-sans fonts-roboto-unhinted   # beside dejavu and liberation
    npm pack @younestouati/playing-cards-standard-deck@3.0.0 && tar xzf younestouati-*.tgz
    .venv/bin/python tools/train_index_classifier.py --svg-deck package/cards \
        --out vision/models/index_classifier.onnx   # docs/vision.md has the committed model's command

Training data is made here: card faces drawn with free fonts
(Debian's font packages of FONT_DIRS: the rank in a font, the suit as a suit glyph of one of
SUIT_FONTS), the 52 faces of ../shared/data/cards/geaxgx/synthetic_renders (MIT, geaxgx) and, with
--svg-deck, the faces of an SVG deck (Chris Aguilar's vectorized-playing-cards, LGPL-3.0, as npm's
@younestouati/playing-cards-standard-deck ships them). Each patch is cut by
vision.index_patch.cut_patch from a corner frame that is deliberately wrong by as much as the
corner finder is (position, angle, card width; with --covered, some at a covered card's width),
then blurred, resampled to a low resolution (with --squash, one axis more than the other, as a
slanted view), noised and JPEG-compressed (with --fade, some prints faded toward the paper; with
--blur, some blurred as a photo out of focus or taken in motion). The
'none' class is the other two corners, the inside of cards, backgrounds and drawn casino-style
backs, so a back or a pip never reads as an index. Fonts in HELD_OUT_FONTS are used for the
validation figure only (a deck the model has not seen).

With --photos N, real photographs are mixed in: N patches at each corner the pipeline proposes on
the training part of ../shared/data/cards/photos-tfod-train, labelled from the photos' boxes
(photo_set). Their validation part (tools/vision_validate.py --images validation) and the test
folder are never read here.
"""

from __future__ import annotations

import argparse
import glob
import math
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.corners import CornerFrame, PaperBlob, corner_frames, find_blobs  # noqa: E402
from vision.index_patch import PATCH_H, PATCH_W, cut_patch, normalise, normalise_all  # noqa: E402
from vision.index_reader import MODEL_PATH, NONE_RANK, NONE_SUIT, RANK_LABELS, IndexReader  # noqa: E402
from vision.reader import SECOND_LOOK  # noqa: E402

# Debian's fonts-dejavu, fonts-liberation, fonts-freefont-ttf, fonts-urw-base35, fonts-crosextra-carlito,
# fonts-crosextra-caladea, fonts-open-sans and fonts-roboto-unhinted (free licences); the folders missing
# on a machine are skipped
FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/liberation",
    "/usr/share/fonts/truetype/freefont",
    "/usr/share/fonts/opentype/urw-base35",
    "/usr/share/fonts/truetype/crosextra",
    "/usr/share/fonts/truetype/open-sans",
    "/usr/share/fonts/truetype/roboto/unhinted",
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF",
)
# not a card index's face: symbols, dingbats, a script, slanted and hairline cuts
SKIPPED_FONT_WORDS = ("Math", "ExtraLight", "Thin", "Italic", "Oblique", "Ita.", "Symbol", "D050000L", "Z003")
# fonts whose suit glyphs (U+2660-2667) are drawn as the index's suit
SUIT_FONTS = ("DejaVuSans.ttf", "DejaVuSerif.ttf", "FreeSerif.ttf", "FreeSans.ttf", "DejaVuSans-Bold.ttf")
# other designs of the suits (--more-suits): URW's (fonts-urw-base35), fatter and rounder
MORE_SUIT_FONTS = ("NimbusSans-Regular.otf", "C059-Roman.otf", "NimbusMonoPS-Bold.otf", "NimbusSans-Bold.otf")
HELD_OUT_FONTS = ("LiberationSerif-Bold.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSerifCondensed.ttf")
SUIT_GLYPHS = "\u2663\u2666\u2665\u2660"  # clubs, diamonds, hearts, spades: tablectl.core.cards order
GEAXGX = ROOT.parent / "shared" / "data" / "cards" / "geaxgx" / "synthetic_renders"
FACE_W, FACE_H = 200, 280
SQUASH_SIGMA = 0.0  # set by --squash
FADE_SHARE = 0.0  # set by --fade
BLUR_SHARE = 0.0  # set by --blur
NEIGHBOUR_SHARE = 0.0  # set by --neighbours
WIDTH_SIGMA = 0.1  # set by --width-sigma
TURN_SIGMA = 4.0  # set by --turn-sigma
JUMBO_SHARE = 0.0  # set by --jumbo
MORE_SUITS = False  # set by --more-suits
COVERED_SHARE = 0.0  # set by --covered
OVERSIZED_SHARE = 0.0  # set by --oversized
DARK_BACK_SHARE = 0.0  # set by --dark-backs
PATTERNED_BACK_SHARE = 0.0  # set by --patterned-backs
TEXT_DARK_SHARE = 0.0  # set by --text-dark
# a dark back's lattice as a camera sees it: white, silver or gold (BGR) lines on a dark field
LATTICE_INKS = ((235, 235, 235), (180, 185, 190), (60, 175, 215))
# a covered card's window: the corner finder measures its width from edges the card on top cuts
# short (up to about a quarter too small) and also tries a quarter more (vision.corners'
# COVERED_WIDTH_FACTOR), so its window is anything from 0.75 to 1.25 of the card's true width
COVERED_WIDTH_RANGE = (0.75, 1.25)
# An index window cut at this share of the card's width shows the index 1.5-2.4 times as large as
# the reader's window holds one: a jumbo index read at the standard size (its suit below the
# window), or a width guess far too small. Such a window is 'none' with --oversized: the rank's
# ink alone was read as a confident card (a jumbo eight as a queen of diamonds at 0.99, Kennard's
# TcB), and unread is better than wrong; `calibrate --faces` sizes the window to the deck.
OVERSIZED_WIDTH_RANGE = (0.42, 0.65)
MARGIN = 60  # background around a face, so a misplaced window sees table, as it does in a photo
# --photos: the photos' suit is not labelled, so their index patches train the rank head alone
UNKNOWN_SUIT = -1
# the windows at which a proposal on a labelled card is read by the committed model to tell an
# index corner from a pip corner: the right rank at any of them, at PHOTO_CHECK_P or more
PHOTO_CHECK_WIDTHS = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6)
PHOTO_CHECK_P = 0.5
# a proposal this many of its card widths from every labelled card is on the table: 'none'
PHOTO_NONE_DISTANCE = 0.5
# the shape a whole card's rotated box must have for its corners to be told apart by their edges
PHOTO_MIN_ASPECT = 1.2


def fonts() -> list[str]:
    found = sorted(p for d in FONT_DIRS for ext in ("ttf", "otf") for p in glob.glob(f"{d}/*.{ext}"))
    return [p for p in found if not any(word in Path(p).name for word in SKIPPED_FONT_WORDS)]


def random_ink(rng: random.Random, red: bool) -> tuple[int, int, int]:
    if red:
        return (rng.randint(150, 235), rng.randint(0, 60), rng.randint(0, 70))
    return (rng.randint(0, 50),) * 3


def draw_face(rng: random.Random, font_path: str, rank: int, suit: int) -> np.ndarray:
    """A card face in the style of a standard deck: index at top left and (turned) bottom right."""
    from PIL import Image, ImageDraw, ImageFont

    paper = rng.randint(225, 255)
    face = Image.new("RGB", (FACE_W, FACE_H), (paper, paper, max(paper - rng.randint(0, 15), 0)))
    draw = ImageDraw.Draw(face)
    ink = random_ink(rng, suit in (1, 2))
    rank_text = "10" if RANK_LABELS[rank] == "T" else RANK_LABELS[rank]
    # a jumbo ('peek') index, as card rooms' decks often have: a rank a fifth of the card's height,
    # its suit below it mostly outside the index window (no random draw without --jumbo, so that
    # a recipe without it makes the same faces as before)
    jumbo = JUMBO_SHARE > 0 and rng.random() < JUMBO_SHARE
    rank_size = int(FACE_H * (rng.uniform(0.17, 0.24) if jumbo else rng.uniform(0.10, 0.16)))
    rank_font = ImageFont.truetype(font_path, rank_size)
    suit_names = [
        name for name in SUIT_FONTS + (MORE_SUIT_FONTS if MORE_SUITS else ()) if name in fonts_by_name
    ]
    suit_font = ImageFont.truetype(
        fonts_by_name[rng.choice(suit_names)], int(rank_size * rng.uniform(0.7, 1.0))
    )
    index = Image.new("RGBA", (FACE_W // 2, FACE_H // 2), (0, 0, 0, 0))
    index_draw = ImageDraw.Draw(index)
    box = index_draw.textbbox((0, 0), rank_text, font=rank_font)
    squeeze = rng.uniform(0.7, 1.0) if rank_text == "10" else 1.0
    centre_x = FACE_W * (rng.uniform(0.1, 0.15) if jumbo else rng.uniform(0.08, 0.12))
    top = FACE_H * rng.uniform(0.025, 0.05)
    text_w = box[2] - box[0]
    rank_layer = Image.new("RGBA", (text_w + 4, box[3] + 4), (0, 0, 0, 0))
    ImageDraw.Draw(rank_layer).text((-box[0] + 2, 0), rank_text, font=rank_font, fill=ink)
    rank_layer = rank_layer.resize((max(int(rank_layer.width * squeeze), 1), rank_layer.height))
    index.alpha_composite(rank_layer, (max(int(centre_x - rank_layer.width / 2), 0), int(top - box[1])))
    suit_box = index_draw.textbbox((0, 0), SUIT_GLYPHS[suit], font=suit_font)
    suit_top = top + (box[3] - box[1]) + FACE_H * rng.uniform(0.005, 0.025)
    index_draw.text(
        (centre_x - (suit_box[2] + suit_box[0]) / 2, suit_top - suit_box[1]),
        SUIT_GLYPHS[suit],
        font=suit_font,
        fill=ink,
    )
    # the middle first, the index over it: pips, or a court card's picture in its frame, close to
    # the index as in real decks, so that a frame line or a pip beside a rank is not read as a '1'
    if rank >= 9 and rng.random() < 0.85:
        left = int(FACE_W * (rng.uniform(0.3, 0.4) if jumbo else rng.uniform(0.15, 0.25)))
        top_edge = int(FACE_H * rng.uniform(0.06, 0.16))
        frame_colour = rng.choice([(30, 60, 170), (20, 20, 20), (200, 160, 30), ink])
        for _ in range(16):
            x0 = rng.randint(left, FACE_W - left - 10)
            y0 = rng.randint(top_edge, FACE_H - top_edge - 10)
            colour = tuple(rng.randint(0, 255) for _ in range(3))
            draw.rectangle((x0, y0, x0 + rng.randint(6, 40), y0 + rng.randint(6, 40)), fill=colour)
        if rng.random() < 0.85:
            draw.rectangle(
                (left, top_edge, FACE_W - left, FACE_H - top_edge),
                outline=frame_colour,
                width=rng.randint(1, 3),
            )
    else:
        pip_font = ImageFont.truetype(fonts_by_name["DejaVuSans.ttf"], int(FACE_H * rng.uniform(0.12, 0.22)))
        columns = (
            [rng.uniform(0.42, 0.5), 0.6, rng.uniform(0.7, 0.78)]
            if jumbo
            else [rng.uniform(0.24, 0.32), 0.42, rng.uniform(0.6, 0.7)]
        )
        for _ in range(rng.randint(1, 10)):
            x = FACE_W * rng.choice(columns) - 10 + rng.uniform(-5, 5)
            draw.text((x, rng.randint(10, 220)), SUIT_GLYPHS[suit], font=pip_font, fill=ink)
    face.paste(index, (0, 0), index)
    face.paste(index.rotate(180), (FACE_W - index.width, FACE_H - index.height), index.rotate(180))
    return cv2.cvtColor(np.array(face), cv2.COLOR_RGB2BGR)


fonts_by_name: dict[str, str] = {}


def geaxgx_faces() -> list[tuple[np.ndarray, int, int]]:
    faces = []
    for path in sorted(GEAXGX.glob("*.png")):
        name = path.stem
        rank_text, suit_letter = name[:-1], name[-1].lower()
        rank = RANK_LABELS.index("T" if rank_text == "10" else rank_text.upper())
        image = cv2.imread(str(path))
        faces.append((cv2.resize(image, (FACE_W, FACE_H)), rank, "cdhs".index(suit_letter)))
    return faces


def svg_deck_faces(folder: Path) -> list[tuple[np.ndarray, int, int]]:
    """A deck of SVG faces named 1c.svg ... 13s.svg (ace 1, jack 11, queen 12, king 13: Chris
    Aguilar's vectorized-playing-cards as npm's @younestouati/playing-cards-standard-deck ships
    them, LGPL-3.0), rendered by resvg (the train extra's resvg-py) at the faces' size."""
    import resvg_py

    order = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "1"]  # RANK_LABELS' order
    faces = []
    for rank, number in enumerate(order):
        for suit, letter in enumerate("cdhs"):
            png = resvg_py.svg_to_bytes(
                svg_path=str(folder / f"{number}{letter}.svg"),
                width=FACE_W,
                height=FACE_H,
                background="#ffffff",
            )
            image = cv2.imdecode(np.frombuffer(bytes(png), np.uint8), cv2.IMREAD_COLOR)
            faces.append((image, rank, suit))
    return faces


def kennard_bundle_faces(bundle: Path) -> list[tuple[np.ndarray, int, int]]:
    """The 52 faces of one of Adrian Kennard's decks (CC0-1.0, www.me.uk/cards) as npm's
    @heruka_urgyen/react-playing-cards 0.5.0 bundles them: lib/TcN.js (two colours, normal
    index) or lib/TcB.js (two colours, a jumbo index, as card rooms' peek-index decks have). Each
    face is a URL-encoded SVG in a JavaScript string, named by its ``face`` attribute ('TC' the
    ten of clubs, '1B' the back); its size is in inches, which resvg refuses, so it is drawn at the
    faces' size instead."""
    import re
    import urllib.parse

    import resvg_py

    faces = []
    for encoded in re.findall(r'"data:image/svg\+xml,([^"]*)"', bundle.read_text()):
        svg = urllib.parse.unquote(encoded)
        named = re.search(r"face='([2-9TJQKA])([CDHS])'", svg)
        if named is None:  # the back
            continue
        svg = re.sub(r"(width|height)='[0-9.]+in'", "", svg, count=2)
        png = resvg_py.svg_to_bytes(svg_string=svg, width=FACE_W, height=FACE_H, background="#ffffff")
        image = cv2.imdecode(np.frombuffer(bytes(png), np.uint8), cv2.IMREAD_COLOR)
        faces.append((image, RANK_LABELS.index(named.group(1)), "CDHS".index(named.group(2))))
    if len(faces) != 52:
        raise SystemExit(f"{bundle}: {len(faces)} faces found, not 52: not a Kennard deck's bundle")
    return faces


_backgrounds: list[np.ndarray] = []


def background(rng: random.Random, shape: tuple[int, int]) -> np.ndarray:
    if len(_backgrounds) < 300:
        _backgrounds.append(make_background(rng, shape))
        return _backgrounds[-1].copy()
    return _backgrounds[rng.randrange(len(_backgrounds))].copy()


def make_background(rng: random.Random, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    base = np.array([rng.randint(0, 255) for _ in range(3)], np.float32)
    noise = cv2.resize(
        np.random.default_rng(rng.randint(0, 10**9)).normal(
            0, rng.uniform(2, 40), (h // 8 + 1, w // 8 + 1, 3)
        ),
        (w, h),
    )
    grain = np.random.default_rng(rng.randint(0, 10**9)).normal(0, rng.uniform(0, 20), (h, w, 3))
    return np.clip(base + noise + grain, 0, 255).astype(np.uint8)


def casino_back(rng: random.Random) -> np.ndarray:
    """One repeated pattern in one dominant colour with a white border."""
    colour = np.array([rng.randint(0, 200) for _ in range(3)], np.float32)
    back = np.full((FACE_H, FACE_W, 3), 245, np.uint8)
    inner = np.full((FACE_H - 24, FACE_W - 24, 3), colour, np.uint8)
    step = rng.randint(6, 20)
    for k in range(-FACE_H, FACE_W + FACE_H, step):
        cv2.line(inner, (k, 0), (k + FACE_H, FACE_H), (245, 245, 245), 1)
        if rng.random() < 0.5:
            cv2.line(inner, (k, FACE_H), (k + FACE_H, 0), (245, 245, 245), 1)
    back[12:-12, 12:-12] = inner
    return back


def patterned_back(rng: random.Random) -> tuple[np.ndarray, bool]:
    """A back of one repeated pattern that is no lattice of lines: diamonds (a harlequin), squares,
    dots or stripes, a colour on white or white on a colour, with a white border or without, and
    whether the reader would see it as a dark card (a dark field with no border: a dark blob).
    Such backs, cut at their corners, were read as indices at acting confidence (a red harlequin
    as the four of diamonds, pale stripes as the queen of clubs) by a model that never saw one."""
    dark_colour = rng.random() < 0.5
    colour = tuple(rng.randint(0, 90) if dark_colour else rng.randint(120, 230) for _ in range(3))
    white = (rng.randint(225, 250),) * 3
    field, ink = (colour, white) if rng.random() < 0.5 else (white, colour)
    back = np.full((FACE_H, FACE_W, 3), field, np.uint8)
    cell = rng.randint(8, 30)
    ys, xs = np.mgrid[0:FACE_H, 0:FACE_W]
    kind = rng.randrange(4)
    if kind == 0:  # a harlequin: checks turned half a right angle
        inked = ((xs + ys) // cell + (xs - ys + 10 * FACE_H) // cell) % 2 == 1
    elif kind == 1:  # squares
        inked = (xs // cell + ys // cell) % 2 == 1
    elif kind == 2:  # dots on a grid
        centre = cell / 2
        inked = (xs % cell - centre) ** 2 + (ys % cell - centre) ** 2 <= (cell * rng.uniform(0.2, 0.4)) ** 2
    else:  # stripes across the card at a slant
        inked = ((xs + ys * rng.choice((-1, 1))) % cell) < max(2, cell // rng.randint(2, 4))
    back[inked] = ink
    bordered = rng.random() < 0.6
    if bordered:
        border = int(FACE_W * rng.uniform(0.04, 0.09))
        framed = np.full_like(back, 245)
        framed[border:-border, border:-border] = back[border:-border, border:-border]
        back = framed
    return back, dark_colour and field == colour and not bordered


def dark_lattice_back(rng: random.Random) -> np.ndarray:
    """The field of a dark casino back, as the reader finds it: a dark blob (vision.corners'
    dark_card_mask) inside the white border, light lines in a lattice on a dark colour. Normalised
    as a dark card, its lines are the ink, which the classifier read as a rank (a king) at its
    corners; casino_back's field on paper is ink all over instead."""
    colour = tuple(rng.randint(0, 80) for _ in range(3))
    back = np.full((FACE_H, FACE_W, 3), colour, np.uint8)
    ink = LATTICE_INKS[rng.randrange(len(LATTICE_INKS))]
    step = rng.randint(5, 24)
    thickness = rng.randint(1, max(1, step // 6))  # thin lines: the field stays the most of it
    slope = rng.uniform(0.5, 2.0)  # diamonds from flat to tall
    for k in range(-4 * FACE_H, FACE_W + 4 * FACE_H, step):
        run = int(FACE_H / slope)
        cv2.line(back, (k, 0), (k + run, FACE_H), ink, thickness)
        if rng.random() < 0.8:
            cv2.line(back, (k, FACE_H), (k + run, 0), ink, thickness)
    return back


def on_canvas(rng: random.Random, face: np.ndarray) -> np.ndarray:
    canvas = background(rng, (FACE_H + 2 * MARGIN, FACE_W + 2 * MARGIN))
    canvas[MARGIN : MARGIN + FACE_H, MARGIN : MARGIN + FACE_W] = face
    return canvas


def with_neighbour(rng: random.Random, canvas: np.ndarray) -> np.ndarray:
    """A neighbouring card along one side of the face (--neighbours): on top of it, covering up
    to 5 % of its width, or beside it up to 3 % away, its paper reaching the canvas's edge and its
    own edge a grey line 1-3 px wide (a board dealt in a row, a fan: that line beside an index is
    what a window a little off its corner sees, and an 8 beside it is no 10)."""
    out = canvas.copy()
    side = rng.randrange(4)  # 0 left, 1 right, 2 top, 3 bottom of the face
    reach = rng.uniform(-0.03, 0.05) * FACE_W  # how far the neighbour's edge lies over the face
    paper = rng.randint(215, 252)
    line = rng.randint(70, 190)
    width = rng.randint(1, 3)
    left, top, right, bottom = MARGIN, MARGIN, MARGIN + FACE_W, MARGIN + FACE_H
    if side == 0:
        edge = round(left + reach)
        out[:, :edge] = paper
        out[:, max(edge - width, 0) : edge] = line
    elif side == 1:
        edge = round(right - reach)
        out[:, edge:] = paper
        out[:, edge : edge + width] = line
    elif side == 2:
        edge = round(top + reach)
        out[:edge] = paper
        out[max(edge - width, 0) : edge] = line
    else:
        edge = round(bottom - reach)
        out[edge:] = paper
        out[edge : edge + width] = line
    return out


TEXT_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,;:'\"!?()-&%$"


def text_page(rng: random.Random, font_paths: list[str]) -> np.ndarray:
    """Printed matter the size of a face: lines of random words (letters, digits, the ranks'
    letters among them, punctuation) in one font and size, on paper or a coloured page, so that
    a book's or a box's print near a card is no index ('none', --text)."""
    from PIL import Image, ImageDraw, ImageFont

    if rng.random() < 0.7:
        paper = rng.randint(200, 255)
        colour = (paper, paper, max(paper - rng.randint(0, 25), 0))
    else:
        colour = tuple(rng.randint(0, 255) for _ in range(3))
    page = Image.new("RGB", (FACE_W, FACE_H), colour)
    draw = ImageDraw.Draw(page)
    size = rng.randint(12, 56)
    font = ImageFont.truetype(rng.choice(font_paths), size)
    ink = random_ink(rng, rng.random() < 0.2)
    y = rng.randint(-size, size)
    while y < FACE_H:
        x = rng.randint(-3 * size, size)
        words = []
        while len(" ".join(words)) * size * 0.5 < FACE_W + 3 * size:
            words.append("".join(rng.choice(TEXT_CHARACTERS) for _ in range(rng.randint(1, 9))))
        draw.text((x, y), " ".join(words), font=font, fill=ink)
        y += int(size * rng.uniform(1.1, 1.8))
    return cv2.cvtColor(np.array(page), cv2.COLOR_RGB2BGR)


def text_set(seed: int, count: int, font_paths: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` 'none' patches of printed matter (text_page), windows anywhere on the page at the
    corner finder's widths, degraded as the faces' are; a share TEXT_DARK_SHARE light print on a
    dark page (--text-dark)."""
    rng = random.Random(seed + 7)
    pages = [text_page(rng, font_paths) for _ in range(max(1, count // 20))]
    xs = np.zeros((count, 2, PATCH_H, PATCH_W), np.float32)
    for i in range(count):
        canvas = on_canvas(rng, pages[rng.randrange(len(pages))])
        frame = frame_at(rng, rng.randrange(4), True)
        frame = CornerFrame(
            (MARGIN + rng.uniform(0, FACE_W * 0.8), MARGIN + rng.uniform(0, FACE_H * 0.8)),
            frame.across,
            frame.down,
            frame.width,
            0,
        )
        patch = degrade(rng, canvas, frame)
        dark = rng.random() < TEXT_DARK_SHARE
        xs[i] = normalise(255 - patch if dark else patch, dark)
    return xs, np.full(count, NONE_RANK, np.int64), np.full(count, NONE_SUIT, np.int64)


def frame_at(rng: random.Random, corner: int, jitter: bool) -> CornerFrame:
    """The frame of one of the face's corners (0 TL, 1 TR, 2 BR, 3 BL) on the canvas, misplaced as
    the corner finder misplaces it (a share COVERED_SHARE at a covered card's width)."""
    points = [(0, 0), (FACE_W, 0), (FACE_W, FACE_H), (0, FACE_H)]
    x, y = points[corner]
    angle = [0.0, 90.0, 180.0, 270.0][corner]  # the 'across' direction of each clockwise frame
    width = float(FACE_W if corner in (0, 2) else FACE_H)
    if jitter:
        x += rng.gauss(0, 0.03) * FACE_W
        y += rng.gauss(0, 0.03) * FACE_W
        angle += rng.gauss(0, TURN_SIGMA)
        width *= math.exp(rng.gauss(0, WIDTH_SIGMA))
        if COVERED_SHARE and rng.random() < COVERED_SHARE:
            # uniform on the log scale, so that too small and too large weigh alike
            low, high = (math.log(factor) for factor in COVERED_WIDTH_RANGE)
            width *= math.exp(rng.uniform(low, high))
    a = math.radians(angle)
    across = (math.cos(a), math.sin(a))
    down = (-math.sin(a), math.cos(a))
    return CornerFrame((x + MARGIN, y + MARGIN), across, down, width, 0)


def motion_kernel(rng: random.Random, length: float) -> np.ndarray:
    """A straight motion blur ``length`` pixels long at a random angle, normalised."""
    size = max(3, int(math.ceil(length)) | 1)
    kernel = np.zeros((size, size), np.float32)
    angle = rng.uniform(0.0, math.pi)
    c = (size - 1) / 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return kernel / max(float(kernel.sum()), 1e-6)


def degrade(rng: random.Random, patch_source: np.ndarray, frame: CornerFrame) -> np.ndarray:
    """Cut at a random low resolution (a rank 8-20 px high), blur, noise, JPEG, light colour."""
    # work on the window's surroundings only: blurring and compressing the whole canvas is slow
    corners = np.array(
        [
            frame.point,
            np.add(frame.point, np.multiply(frame.across, frame.width * 0.3)),
            np.add(frame.point, np.multiply(frame.down, frame.width * 0.5)),
            np.add(frame.point, np.multiply(frame.across, frame.width * 0.3))
            + np.multiply(frame.down, frame.width * 0.5),
        ]
    )
    x0, y0 = np.maximum(corners.min(axis=0).astype(int) - 8, 0)
    x1, y1 = corners.max(axis=0).astype(int) + 8
    image = patch_source[y0:y1, x0:x1]
    frame = CornerFrame((frame.point[0] - x0, frame.point[1] - y0), frame.across, frame.down, frame.width, 0)
    if FADE_SHARE and rng.random() < FADE_SHARE:
        # faded or washed-out print (a worn deck, glare, a pale red): the ink halfway to paper
        contrast = rng.uniform(0.3, 0.8)
        image = (255.0 - (255.0 - image.astype(np.float32)) * contrast).astype(np.uint8)
    if BLUR_SHARE and rng.random() < BLUR_SHARE:
        # a photo out of focus or taken as the hand moved: 1-2.5 % of the card's width at the face's
        # scale (a rank's stroke is about 3 %), as the training photos' blurred cards show it
        if rng.random() < 0.5:
            image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.01, 0.025) * frame.width)
        else:
            image = cv2.filter2D(image, -1, motion_kernel(rng, rng.uniform(0.03, 0.07) * frame.width))
    elif rng.random() < 0.7:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 2.0))
    small_scale = rng.uniform(0.12, 0.9)  # card width in the photo / FACE_W
    # a card seen at a slant, or a photo stretched to a square: one axis shorter than the other
    # (SQUASH_SIGMA, log scale); the corner finder then measures the card's width along the
    # squashed top edge and cuts its window from there, so the frame is squashed with the picture
    squash = math.exp(rng.gauss(0, SQUASH_SIGMA)) if SQUASH_SIGMA else 1.0
    sx, sy = small_scale * math.sqrt(squash), small_scale / math.sqrt(squash)
    small = cv2.resize(image, None, fx=sx, fy=sy, interpolation=cv2.INTER_AREA)
    across = np.array(frame.across) * (sx, sy)
    down = np.array(frame.down) * (sx, sy)
    shrunk = CornerFrame(
        (frame.point[0] * sx, frame.point[1] * sy),
        tuple(across / np.linalg.norm(across)),
        tuple(down / np.linalg.norm(down)),
        frame.width * float(np.linalg.norm(across)),
        0,
    )
    gain = np.array([rng.uniform(0.6, 1.15) for _ in range(3)], np.float32) * rng.uniform(0.5, 1.1)
    small = np.clip(small.astype(np.float32) * gain + rng.gauss(0, 6), 0, 255)
    small = np.clip(
        small + np.random.default_rng(rng.randint(0, 10**9)).normal(0, rng.uniform(0, 8), small.shape), 0, 255
    )
    ok, encoded = cv2.imencode(
        ".jpg", small.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 95)]
    )
    small = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    return cut_patch(small, shrunk)


def sample(
    rng: random.Random, faces: list[tuple[np.ndarray, int, int]], backs: bool
) -> tuple[np.ndarray, int, int]:
    face, rank, suit = faces[rng.randrange(len(faces))]
    kind = rng.random()
    if backs and kind < 0.08:
        canvas = on_canvas(rng, casino_back(rng))
        return degrade(rng, canvas, frame_at(rng, rng.randrange(4), True)), NONE_RANK, NONE_SUIT
    canvas = on_canvas(rng, face)
    if NEIGHBOUR_SHARE and rng.random() < NEIGHBOUR_SHARE:
        canvas = with_neighbour(rng, canvas)
    if kind < 0.6:
        corner = rng.choice((0, 2))  # the two index corners
        frame = frame_at(rng, corner, True)
        if OVERSIZED_SHARE and rng.random() < OVERSIZED_SHARE:
            low, high = (math.log(factor) for factor in OVERSIZED_WIDTH_RANGE)
            frame = frame._replace(width=frame.width * math.exp(rng.uniform(low, high)))
            return degrade(rng, canvas, frame), NONE_RANK, NONE_SUIT
        return degrade(rng, canvas, frame), rank, suit
    if kind < 0.85:
        frame = frame_at(rng, rng.choice((1, 3)), True)
    else:  # anywhere: inside the card or off it
        frame = frame_at(rng, 0, True)
        frame = CornerFrame(
            (frame.point[0] + rng.uniform(-50, FACE_W), frame.point[1] + rng.uniform(-50, FACE_H)),
            frame.across,
            frame.down,
            frame.width,
            0,
        )
    return degrade(rng, canvas, frame), NONE_RANK, NONE_SUIT


def make_set(
    seed: int,
    count: int,
    font_paths: list[str],
    with_geaxgx: bool,
    svg_decks: tuple[Path, ...] = (),
    kennard_bundles: tuple[Path, ...] = (),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    faces: list[tuple[np.ndarray, int, int]] = []
    for font_path in font_paths:
        for rank in range(13):
            for suit in range(4):
                faces.append((draw_face(rng, font_path, rank, suit), rank, suit))
    if with_geaxgx:
        faces += geaxgx_faces() * max(1, len(font_paths) // 4)
    for folder in svg_decks:  # a drawn deck weighs as much as geaxgx's
        faces += svg_deck_faces(folder) * max(1, len(font_paths) // 4)
    for bundle in kennard_bundles:
        faces += kennard_bundle_faces(bundle) * max(1, len(font_paths) // 4)
    xs = np.zeros((count, 2, PATCH_H, PATCH_W), np.float32)
    ranks = np.zeros(count, np.int64)
    suits = np.zeros(count, np.int64)
    for i in range(count):
        if DARK_BACK_SHARE and rng.random() < DARK_BACK_SHARE:
            canvas = on_canvas(rng, dark_lattice_back(rng))
            patch = degrade(rng, canvas, frame_at(rng, rng.randrange(4), True))
            xs[i], ranks[i], suits[i] = normalise(patch, True), NONE_RANK, NONE_SUIT
            continue
        if PATTERNED_BACK_SHARE and rng.random() < PATTERNED_BACK_SHARE:
            back, dark = patterned_back(rng)
            patch = degrade(rng, on_canvas(rng, back), frame_at(rng, rng.randrange(4), True))
            xs[i], ranks[i], suits[i] = normalise(patch, dark), NONE_RANK, NONE_SUIT
            continue
        patch, ranks[i], suits[i] = sample(rng, faces, backs=True)
        dark = rng.random() < 0.1
        if dark:  # a dark deck with light print, as a camera sees one
            patch = 255 - patch
        xs[i] = normalise(patch, dark)
    return xs, ranks, suits


def _whole_card_corner(frame: CornerFrame, blob: PaperBlob) -> str | None:
    """'index' or 'pips' for a corner of a whole card (a blob that is one card) by its edges: the
    index corners are those whose 'across' runs along the card's short side (clockwise frames,
    vision.corners); None for any other blob or a box too square to tell."""
    if not blob.whole:
        return None
    box = cv2.boxPoints(cv2.minAreaRect(blob.contour))
    sides = [box[1] - box[0], box[2] - box[1]]
    lengths = [float(np.hypot(*side)) for side in sides]
    if max(lengths) < PHOTO_MIN_ASPECT * max(min(lengths), 1.0):
        return None
    long_side = sides[int(np.argmax(lengths))] / max(lengths)
    along_long = abs(float(np.dot(long_side, frame.across)))
    if along_long > 0.9:
        return "pips"
    if along_long < 0.45:
        return "index"
    return None


def photo_degrade(rng: random.Random, image: np.ndarray, frame: CornerFrame) -> np.ndarray:
    """A real photo's window, misplaced a little as the corner finder misplaces it, under another
    light and camera: gain and tint, sometimes blur or a lower resolution, noise, JPEG."""
    corners = np.array(
        [
            np.add(
                frame.point,
                np.multiply(frame.across, frame.width * t) + np.multiply(frame.down, frame.width * u),
            )
            for t in (-0.1, 0.4)
            for u in (-0.1, 0.6)
        ]
    )
    h, w = image.shape[:2]
    x0, y0 = np.clip(corners.min(axis=0).astype(int) - 4, 0, (w - 1, h - 1))
    x1, y1 = np.clip(corners.max(axis=0).astype(int) + 4, 1, (w, h))
    crop = image[y0:y1, x0:x1].astype(np.float32)
    local = CornerFrame((frame.point[0] - x0, frame.point[1] - y0), frame.across, frame.down, frame.width, 0)
    if rng.random() < 0.3:
        crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.3:  # the card seen from farther away
        factor = rng.uniform(0.55, 0.95)
        crop = cv2.resize(crop, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        local = CornerFrame(
            (local.point[0] * factor, local.point[1] * factor),
            local.across,
            local.down,
            local.width * factor,
            0,
        )
    gain = np.array([rng.uniform(0.75, 1.15) for _ in range(3)], np.float32) * rng.uniform(0.6, 1.2)
    crop = crop * gain + rng.gauss(0, 6)
    crop = crop + np.random.default_rng(rng.randint(0, 10**9)).normal(0, rng.uniform(0, 6), crop.shape)
    ok, encoded = cv2.imencode(
        ".jpg", np.clip(crop, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 95)]
    )
    return cut_patch(cv2.imdecode(encoded, cv2.IMREAD_COLOR), local)


def jittered(rng: random.Random, frame: CornerFrame, variant: int) -> CornerFrame:
    """The reader's own windows first (the proposal, then its second look's), then windows moved,
    turned and resized about as much as the corner finder errs."""
    if variant < 1 + len(SECOND_LOOK):
        factor = ([1.0] + list(SECOND_LOOK))[variant]
        return CornerFrame(frame.point, frame.across, frame.down, frame.width * factor, frame.blob)
    turn = math.radians(rng.gauss(0, 3.0))
    cosine, sine = math.cos(turn), math.sin(turn)
    across = (
        frame.across[0] * cosine - frame.across[1] * sine,
        frame.across[0] * sine + frame.across[1] * cosine,
    )
    down = (-across[1], across[0])
    point = (
        frame.point[0] + rng.gauss(0, 0.03) * frame.width,
        frame.point[1] + rng.gauss(0, 0.03) * frame.width,
    )
    return CornerFrame(point, across, down, frame.width * math.exp(rng.gauss(0, 0.12)), frame.blob)


def photo_set(
    seed: int, variants: int, none_share: float, checker_path: Path = MODEL_PATH, hold_out: str = ""
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """Patches of the training part of ../shared/data/cards/photos-tfod-train (never its validation
    part, tools/vision_validate.py's VALIDATION_RUNS), cut where the pipeline proposes corners.
    The labels give each card's box and rank, not its corners, so a proposal in one card's box is
    that card's index only when the proposal shows it: a whole card's corner whose 'across' runs
    along its short side, or any proposal that the model before (``checker_path``) reads as the
    card's rank through one of PHOTO_CHECK_WIDTHS. A whole card's other two corners (pips) and a
    share ``none_share`` of the proposals far from every card are 'none'; the rest is left out (a
    pip corner or an index the model cannot read yet: unknown which). ``variants`` patches are
    cut for each kept proposal; ``hold_out`` ('K/N') leaves fold K of N out (cross-validation).

    The labels have no suit. A card's suit is the one the model before reads at its index at
    acting confidence with the right rank (where all such reads agree), else it is UNKNOWN_SUIT
    and only the rank is learned. Without suits for the photos' indexes the suit head would learn
    that a real photo's patch has suit 'none', the only suit it would ever be shown there."""
    from tools.vision_validate import TRAIN, load_labels, photo_names
    from vision.reader import ACT_CONFIDENCE, MAX_SIDE
    from vision.sources import Frame, read_image

    rng = random.Random(seed)
    checker = IndexReader(checker_path)
    labels = load_labels()
    patches: list[np.ndarray] = []
    darks: list[bool] = []
    ranks: list[int] = []
    suits: list[int] = []
    tally = {
        "index, whole card": 0,
        "index, read": 0,
        "of which suit known": 0,
        "pips, whole card": 0,
        "none, off the cards": 0,
    }
    held_out = set(photo_names(f"fold:{hold_out}")) if hold_out else set()
    for name in photo_names("training"):
        if name in held_out:
            continue
        frame_or_skip = read_image(TRAIN / "images" / name)
        if not isinstance(frame_or_skip, Frame):
            continue
        image = frame_or_skip.image
        scale = min(1.0, MAX_SIDE / max(image.shape[:2]))
        if scale < 1.0:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        blobs = find_blobs(image)
        frames = corner_frames(blobs, image.shape)
        cards = [(RANK_LABELS.index(rank), np.array(box, np.float64) * scale) for rank, box in labels[name]]
        card_suits: list[set[int]] = [set() for _ in cards]
        kept: list[tuple[CornerFrame, int | None, str]] = []  # the frame, its card (None: no card), why
        for frame in frames:
            blob = blobs[frame.blob]
            point = np.array(frame.point)
            holding = []
            nearest = math.inf
            for k, (_, (x0, y0, x1, y1)) in enumerate(cards):
                margin = 0.05 * max(x1 - x0, y1 - y0)
                if x0 - margin <= point[0] <= x1 + margin and y0 - margin <= point[1] <= y1 + margin:
                    holding.append(k)
                gap = np.maximum([x0 - point[0], y0 - point[1], point[0] - x1, point[1] - y1], 0.0)
                nearest = min(nearest, float(np.hypot(max(gap[0], gap[2]), max(gap[1], gap[3]))))
            if not holding:
                if nearest > PHOTO_NONE_DISTANCE * frame.width and rng.random() < none_share:
                    kept.append((frame, None, "none, off the cards"))
                continue
            if blob.dark:
                continue
            looks = [
                CornerFrame(frame.point, frame.across, frame.down, frame.width * f, frame.blob)
                for f in PHOTO_CHECK_WIDTHS
            ]
            cut = np.array([cut_patch(image, look) for look in looks], np.uint8)
            reads = checker.read(normalise_all(cut, np.zeros(len(looks), bool)))
            read_as = {
                k for k in holding for r in reads if r.rank == cards[k][0] and r.rank_p >= PHOTO_CHECK_P
            }
            for k in read_as:
                card_suits[k] |= {
                    r.suit for r in reads if r.rank == cards[k][0] and r.confidence >= ACT_CONFIDENCE
                }
            corner = _whole_card_corner(frame, blob) if len(holding) == 1 else None
            if corner == "pips":
                kept.append((frame, None, "pips, whole card"))
            elif corner == "index":
                kept.append((frame, holding[0], "index, whole card"))
            elif len(read_as) == 1:
                kept.append((frame, read_as.pop(), "index, read"))
        for frame, card, kind in kept:
            if card is None:
                label = (NONE_RANK, NONE_SUIT)
            else:
                known = card_suits[card]
                label = (cards[card][0], next(iter(known)) if len(known) == 1 else UNKNOWN_SUIT)
                tally["of which suit known"] += len(known) == 1
            tally[kind] += 1
            for variant in range(variants):
                patches.append(photo_degrade(rng, image, jittered(rng, frame, variant)))
                darks.append(blobs[frame.blob].dark)
                ranks.append(label[0])
                suits.append(label[1])
    xs = normalise_all(np.array(patches, np.uint8).reshape(-1, PATCH_H, PATCH_W, 3), np.array(darks, bool))
    return xs, np.array(ranks, np.int64), np.array(suits, np.int64), tally


def build_net(width: int, folded: bool = False):  # type: ignore[no-untyped-def]
    """``folded``: each batch norm folded into its convolution's weights and bias, as the ONNX
    export leaves it (the net that --init fine-tunes: the same function as the model it starts
    from, which a batch norm fed a new batch's statistics would not be)."""
    import torch.nn as nn

    def block(cin: int, cout: int, pool: bool) -> list[nn.Module]:
        layers: list[nn.Module] = (
            [nn.Conv2d(cin, cout, 3, padding=1, bias=True), nn.ReLU()]
            if folded
            else [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]
        )
        return layers + ([nn.MaxPool2d(2)] if pool else [])

    return nn.Sequential(
        *block(2, width, True),
        *block(width, 2 * width, True),
        *block(2 * width, 4 * width, True),
        *block(4 * width, 4 * width, False),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(4 * width, len(RANK_LABELS) + 1 + 5),
    )


def load_exported(net, model: Path) -> None:  # type: ignore[no-untyped-def]
    """An exported model's weights into a ``build_net(width, folded=True)`` net: its
    convolutions' weights and biases in the graph's order, then the last layer's."""
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    graph = onnx.load(str(model)).graph
    weights = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    layers = [node for node in graph.node if node.op_type in ("Conv", "Gemm")]
    modules = [module for module in net if isinstance(module, nn.Conv2d | nn.Linear)]
    if len(layers) != len(modules):
        raise SystemExit(f"{model}: {len(layers)} layers with weights, the net has {len(modules)}")
    with torch.no_grad():
        for node, module in zip(layers, modules, strict=True):
            if len(node.input) < 3 or not all(name in weights for name in node.input[1:3]):
                raise SystemExit(
                    f"{model}: {node.name} has no stored weights and bias (not an export of this net)"
                )
            weight, bias = (torch.from_numpy(weights[name].copy()) for name in node.input[1:3])
            if weight.shape != module.weight.shape:
                raise SystemExit(
                    f"{model}: {node.name} is {tuple(weight.shape)}, not {tuple(module.weight.shape)}"
                )
            module.weight.copy_(weight)
            module.bias.copy_(bias)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "vision" / "models" / "index_classifier.onnx")
    parser.add_argument("--samples", type=int, default=120_000)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument(
        "--width", type=int, default=8, help="channels of the first layer (8: 16 k parameters)"
    )
    parser.add_argument("--cache", type=Path, help="keep the generated patches in this .npz between runs")
    parser.add_argument(
        "--squash",
        type=float,
        default=0.0,
        help="sigma of the log of one axis' squash against the other (0: none; 0.15 about +-15 %%)",
    )
    parser.add_argument(
        "--blur",
        type=float,
        default=0.0,
        help="the share of patches blurred as a photo out of focus or taken in motion is",
    )
    parser.add_argument(
        "--neighbours",
        type=float,
        default=0.0,
        help="the share of faces with a neighbouring card along one side (on top of it or beside it)",
    )
    parser.add_argument(
        "--fade", type=float, default=0.0, help="the share of patches whose print is faded toward the paper"
    )
    parser.add_argument(
        "--width-sigma",
        type=float,
        default=0.1,
        help="sigma of the log of the window's width against the card's (0.1: about +-10 %%)",
    )
    parser.add_argument(
        "--more-suits",
        action="store_true",
        help="the drawn faces' suits also in MORE_SUIT_FONTS' designs",
    )
    parser.add_argument(
        "--jumbo",
        type=float,
        default=0.0,
        help="the share of font-drawn faces with a jumbo index (a rank a fifth of the card's height)",
    )
    parser.add_argument(
        "--turn-sigma",
        type=float,
        default=4.0,
        help="sigma, in degrees, of the window's turn against the card's edges (the corner finder's error)",
    )
    parser.add_argument(
        "--covered",
        type=float,
        default=0.0,
        help="the share of windows cut at a covered card's width, 0.75-1.25 of the true one",
    )
    parser.add_argument(
        "--oversized",
        type=float,
        default=0.0,
        help="the share of index windows cut at OVERSIZED_WIDTH_RANGE of the card's width, 'none' "
        "(an index far larger than the window holds: a jumbo index at the standard size)",
    )
    parser.add_argument(
        "--init",
        type=Path,
        help="fine-tune this exported model (of --width's net) instead of training from scratch",
    )
    parser.add_argument(
        "--tune-last",
        type=int,
        default=0,
        help="with --init: only the last N layers with weights learn (0: all)",
    )
    parser.add_argument("--lr", type=float, default=3e-3, help="the one-cycle schedule's peak learning rate")
    parser.add_argument(
        "--dark-backs",
        type=float,
        default=0.0,
        help="the share of patches cut from a dark back's lattice as a dark card, 'none' (0: none; "
        "a --cache keeps the patches it was made with)",
    )
    parser.add_argument(
        "--patterned-backs",
        type=float,
        default=0.0,
        help="the share of patches cut from backs of a pattern that is no lattice (harlequins, "
        "checks, dots, stripes; patterned_back), 'none' (0: none; a --cache keeps the patches it "
        "was made with)",
    )
    parser.add_argument(
        "--text",
        type=float,
        default=0.0,
        help="'none' patches of printed matter added, as a share of the generated set (text_set; "
        "made after a --cache is read, so a cache serves with or without them)",
    )
    parser.add_argument(
        "--text-dark",
        type=float,
        default=0.0,
        help="the share of --text's patches that are light print on a dark page, read as a dark card's",
    )
    parser.add_argument("--threads", type=int, default=2, help="torch's threads")
    parser.add_argument(
        "--svg-deck",
        type=Path,
        action="append",
        default=[],
        help="a folder of SVG faces 1c.svg ... 13s.svg (repeatable; see svg_deck_faces)",
    )
    parser.add_argument(
        "--kennard-bundle",
        type=Path,
        action="append",
        default=[],
        help="lib/TcN.js or lib/TcB.js of npm's @heruka_urgyen/react-playing-cards 0.5.0: Adrian "
        "Kennard's CC0 deck (repeatable; see kennard_bundle_faces)",
    )
    parser.add_argument(
        "--photos",
        type=int,
        default=0,
        help="patches cut at each labelled corner proposal of the training photos' training part "
        "(0: none; see photo_set)",
    )
    parser.add_argument(
        "--photo-none-share",
        type=float,
        default=0.1,
        help="the share of the training photos' proposals off every card kept as 'none'",
    )
    parser.add_argument(
        "--checker",
        type=Path,
        default=MODEL_PATH,
        help="the model that tells the photos' index corners and suits (default: the committed one)",
    )
    parser.add_argument(
        "--hold-out",
        default="",
        help="K/N: leave fold K of N of the training part out of --photos (tools/vision_validate.py's "
        "fold_of), to read it with --images fold:K/N as photos never trained on",
    )
    args = parser.parse_args()
    if args.tune_last < 0:
        parser.error("--tune-last is a number of layers: 0 (all learn) or more")
    if args.tune_last and args.init is None:
        parser.error("--tune-last fine-tunes a model: give it with --init")

    import torch
    import torch.nn.functional as F

    global SQUASH_SIGMA, FADE_SHARE, BLUR_SHARE, WIDTH_SIGMA, COVERED_SHARE, DARK_BACK_SHARE, NEIGHBOUR_SHARE
    global TEXT_DARK_SHARE, TURN_SIGMA, JUMBO_SHARE, MORE_SUITS, OVERSIZED_SHARE, PATTERNED_BACK_SHARE
    PATTERNED_BACK_SHARE = args.patterned_backs
    OVERSIZED_SHARE = args.oversized
    TURN_SIGMA, JUMBO_SHARE, MORE_SUITS = args.turn_sigma, args.jumbo, args.more_suits
    SQUASH_SIGMA, FADE_SHARE, BLUR_SHARE = args.squash, args.fade, args.blur
    NEIGHBOUR_SHARE = args.neighbours
    WIDTH_SIGMA, COVERED_SHARE, DARK_BACK_SHARE = args.width_sigma, args.covered, args.dark_backs
    TEXT_DARK_SHARE = args.text_dark
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    for path in fonts():
        fonts_by_name[Path(path).name] = path
    train_fonts = [p for p in fonts() if Path(p).name not in HELD_OUT_FONTS]
    held_out = [p for p in fonts() if Path(p).name in HELD_OUT_FONTS]
    started = time.time()
    if args.cache and args.cache.exists():
        cached = np.load(args.cache)
        xs, ranks, suits, vx, vranks, vsuits = (
            cached[k] for k in ("xs", "ranks", "suits", "vx", "vranks", "vsuits")
        )
    else:
        xs, ranks, suits = make_set(
            args.seed,
            args.samples,
            train_fonts,
            with_geaxgx=True,
            svg_decks=tuple(args.svg_deck),
            kennard_bundles=tuple(args.kennard_bundle),
        )
        vx, vranks, vsuits = make_set(args.seed + 1, 6000, held_out, with_geaxgx=False)
        if args.cache:
            np.savez(args.cache, xs=xs, ranks=ranks, suits=suits, vx=vx, vranks=vranks, vsuits=vsuits)
    print(f"data: {len(xs)} train, {len(vx)} held-out patches in {time.time() - started:.0f}s", flush=True)
    if args.text:
        tx_, tr_, ts_ = text_set(args.seed, int(args.text * len(xs)), train_fonts)
        print(f"text: {len(tx_)} patches of printed matter in {time.time() - started:.0f}s", flush=True)
        xs, ranks, suits = (np.concatenate(pair) for pair in ((xs, tx_), (ranks, tr_), (suits, ts_)))
    if args.photos:
        px, pranks, psuits, tally = photo_set(
            args.seed, args.photos, args.photo_none_share, args.checker, args.hold_out
        )
        print(f"photos: {len(px)} patches from {tally} in {time.time() - started:.0f}s", flush=True)
        xs, ranks, suits = (np.concatenate(pair) for pair in ((xs, px), (ranks, pranks), (suits, psuits)))

    net = build_net(args.width, folded=args.init is not None)
    if args.init:
        load_exported(net, args.init)
    if args.tune_last:
        # only the last layers learn: what the model has learned to see stays as it was
        learning = [m for m in net if isinstance(m, torch.nn.Conv2d | torch.nn.Linear)][-args.tune_last :]
        for module in net:
            module.requires_grad_(module in learning)
    print(f"{sum(p.numel() for p in net.parameters())} parameters", flush=True)
    optimiser = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=args.lr)
    steps = args.epochs * (len(xs) // 256)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=steps)
    tx, tr, ts = torch.from_numpy(xs), torch.from_numpy(ranks), torch.from_numpy(suits)
    for epoch in range(args.epochs):
        net.train()
        order = torch.randperm(len(tx))
        for start in range(0, len(tx) - 255, 256):
            batch = order[start : start + 256]
            out = net(tx[batch])
            loss = F.cross_entropy(out[:, :14], tr[batch]) + F.cross_entropy(
                out[:, 14:], ts[batch], ignore_index=UNKNOWN_SUIT
            )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        net.eval()
        with torch.no_grad():
            out = net(torch.from_numpy(vx))
        rank_ok = (out[:, :14].argmax(1).numpy() == vranks).mean()
        suit_ok = (out[:, 14:].argmax(1).numpy() == vsuits).mean()
        print(
            f"epoch {epoch + 1}: loss {loss.item():.3f}, held-out fonts rank {rank_ok:.3f} "
            f"suit {suit_ok:.3f}, {time.time() - started:.0f}s",
            flush=True,
        )
    net.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    example = torch.zeros(1, 2, PATCH_H, PATCH_W)
    torch.onnx.export(
        net,
        (example,),
        str(args.out),
        input_names=["x"],
        output_names=["logits"],
        dynamic_axes={"x": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
