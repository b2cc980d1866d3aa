"""Calibration at the table: a frame with the zones drawn (for the installer to check them), the
backs of the decks in use learned from a few frames (vision/backs.py), and their faces: the size of
their index (a jumbo index is larger than the reader's standard window) and whether they are
four-colour.

Wired as ``tablectl vision calibrate`` (tablectl/cli/calibrate.py), which reads the table's config.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.backs import Back, Backs, BacksError, learn, load_backs, save_backs, upright
from vision.corners import channels
from vision.faces import blue_or_green
from vision.mouth import INK_DARK, INK_SATURATION
from vision.reader import ACT_CONFIDENCE, CardReader
from vision.sighting import CardSighting, Facing
from vision.sources import Frame, Skipped, SourceError, open_camera
from vision.types import BGRImage
from vision.zones import CameraConfig

ZONE_COLOURS = {  # BGR
    "shoe": (0, 200, 255),
    "board": (255, 200, 0),
    "burn": (200, 0, 200),
    "muck": (160, 160, 160),
    "seat": (0, 255, 0),
}
FACING_COLOURS = {Facing.UP: (0, 0, 255), Facing.DOWN: (255, 0, 0), Facing.UNKNOWN: (0, 255, 255)}
PLANE_COLOUR = (255, 0, 255)  # the table plane's rectangle, magenta (BGR): a white sheet lies under it
GRAB_TRIES = 90  # frames a camera may skip before calibration gives up on it (3 s at 30 fps)


def grab_frame(camera: CameraConfig) -> BGRImage:
    """One good frame from the camera's source (SourceError when it gives none)."""
    return grab_frames(camera, 1)[0]


def grab_frames(camera: CameraConfig, count: int) -> list[BGRImage]:
    """``count`` good frames from the camera's source (SourceError when it gives none)."""
    source = open_camera(camera)
    try:
        images: list[BGRImage] = []
        reasons: list[str] = []
        for number, item in enumerate(source.frames()):
            if isinstance(item, Frame):
                images.append(item.image)
                if len(images) == count:
                    return images
            else:
                reasons.append(item.reason)
            if number >= GRAB_TRIES + count:
                break
        if images:
            return images
        why = reasons[-1] if reasons else "it gave nothing"
        raise SourceError(f"the {camera.device_name} ({camera.source.describe()}) gave no frame: {why}")
    finally:
        source.close()


def check_size(camera: CameraConfig, image: BGRImage, where: str) -> None:
    height, width = image.shape[:2]
    if (width, height) != camera.size:
        raise SourceError(
            f"{where} is {width}x{height}, the {camera.device_name}'s zones are drawn on "
            f"{camera.size[0]}x{camera.size[1]} (cameras.{camera.name}.size): give a frame of that "
            "camera at its size, or correct the size"
        )


def draw_zones(image: BGRImage, camera: CameraConfig, cards: Iterable[CardSighting] = ()) -> BGRImage:
    """The frame with each zone's outline and name, and the cards found on it (red face up, blue
    face down, yellow unknown, with the card and its width in pixels: a rank needs a card about
    24 px wide or more to be read)."""
    out = image.copy()
    thick = max(1, round(max(out.shape[:2]) / 400))
    scale = max(0.4, max(out.shape[:2]) / 1200)
    for zone in camera.zones:
        colour = ZONE_COLOURS[zone.kind]
        points = np.array(zone.points, np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [points], True, colour, thick + 1, cv2.LINE_AA)
        left, top, _, _ = zone.bounds()
        _label(out, zone.name, (int(left) + 4, int(top) + int(22 * scale) + 2), colour, scale, thick)
    if camera.plane is not None:
        # the rectangle on the cloth that the frames are seen from above by: its corners numbered,
        # so that the installer sees them where the sheet lies, in the order given
        corners = np.array(camera.plane.corners)
        cv2.polylines(
            out, [corners.astype(np.int32).reshape(-1, 1, 2)], True, PLANE_COLOUR, thick, cv2.LINE_AA
        )
        for number, (x, y) in enumerate(camera.plane.corners, start=1):
            _label(out, str(number), (int(x) + 4, int(y) - 4), PLANE_COLOUR, scale * 0.8, thick)
        width_mm, height_mm = camera.plane.size_mm
        # under the sheet, clear of its numbered corners
        x, y = float(corners[:, 0].min()), float(corners[:, 1].max())
        _label(
            out,
            f"plane {width_mm:g} x {height_mm:g} mm",
            (int(x), int(y) + int(30 * scale)),
            PLANE_COLOUR,
            scale * 0.8,
            thick,
        )
    for card in cards:
        colour = FACING_COLOURS[card.facing]
        quad = np.array(card.corners, np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [quad], True, colour, thick, cv2.LINE_AA)
        corners = np.array(card.corners)
        width = min(np.hypot(*(corners[1] - corners[0])), np.hypot(*(corners[2] - corners[1])))
        text = f"{card.card or card.facing.value} {width:.0f}px"
        x, y = corners.min(axis=0)
        _label(out, text, (int(x), max(12, int(y) - 4)), colour, scale * 0.8, thick)
    return out


def _label(
    image: BGRImage, text: str, at: tuple[int, int], colour: tuple[int, int, int], scale: float, thick: int
) -> None:
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def back_samples(
    images: Iterable[BGRImage], reader: CardReader | None = None
) -> list[tuple[BGRImage, np.ndarray]]:
    """The face-down cards of the frames, as (frame, corners), found as the reader finds them
    without calibration: the whole cards with no face showing, called face down, and the white
    ones whose print is a pale back's (a pale back in a bright light is as white as paper: its
    pattern, its coloured field or no print at all; unknown, never face down, without a back to
    match). A dark card is found face down here by its outline whatever its print, as before its
    pips could show a face (CardReader.for_calibration): a back with a few ornaments alike is
    learnt like any other."""
    reader = (reader or CardReader()).for_calibration()
    samples = []
    for image in images:
        for card in reader.read(image):
            if card.back_like:
                samples.append((image, np.array(card.corners, np.float32)))
    return samples


def _images(frames: Iterable[Frame | Skipped], what: str) -> tuple[list[BGRImage], list[str]]:
    """The frames' images, and the frames skipped (with why); BacksError when there is none."""
    images, skipped = [], []
    for item in frames:
        if isinstance(item, Frame):
            images.append(item.image)
        else:
            skipped.append(f"{item.label}: {item.reason}")
    if not images:
        why = f" ({'; '.join(skipped)})" if skipped else ""
        raise BacksError(f"no frame to learn from{why}: give image files (or folders) of the deck's {what}")
    return images, skipped


@dataclass(frozen=True)
class SetAside:
    """A damaged backs file, kept under another name so that learning starts a new one."""

    path: Path
    why: str  # what was wrong with it (vision.backs.load_backs' error)


def _backs_to_learn_into(backs_file: Path) -> tuple[Backs, SetAside | None]:
    """What ``backs_file`` holds (nothing when it is missing). A damaged file is renamed to
    ``<name>.damaged`` (numbered when that is taken) and learning starts anew: refusing to learn
    over it would leave the table no way back to a file but deleting it by hand, and keeping it
    loses nothing of what it held."""
    if not backs_file.exists():
        return Backs(()), None
    try:
        return load_backs(backs_file), None
    except BacksError as error:
        kept = backs_file.with_name(backs_file.name + ".damaged")
        number = 0
        while kept.exists():
            number += 1
            kept = backs_file.with_name(f"{backs_file.name}.damaged.{number}")
        try:
            backs_file.rename(kept)
        except OSError as failure:
            raise BacksError(f"{error}; and it could not be set aside ({failure})") from None
        return Backs(()), SetAside(kept, str(error))


@dataclass(frozen=True)
class LearnedBack:
    back: Back
    left_out: int  # cards left out as unlike the others (a face among the backs?)
    skipped: list[str]  # the frames skipped, with why
    set_aside: SetAside | None = None  # the file was damaged: kept there, and a new one begun


def learn_backs(
    name: str, frames: Iterable[Frame | Skipped], backs_file: Path, reader: CardReader | None = None
) -> LearnedBack:
    """Learn the back ``name`` from frames (image files, or a camera's) and write it into
    ``backs_file`` (the other backs there are kept; one of the same name is replaced; a damaged
    file is set aside and a new one begun: _backs_to_learn_into)."""
    images, skipped = _images(frames, "backs")
    back, left_out = learn(name, back_samples(images, reader))
    backs, set_aside = _backs_to_learn_into(backs_file)
    save_backs(backs.with_back(back), backs_file)
    return LearnedBack(back, left_out, skipped, set_aside)


# the index windows tried, as a share of the standard one: a normal index, up to a jumbo one (its
# rank a fifth of the card's height, about 1.75 times a normal one)
INDEX_SCALES = (1.0, 1.25, 1.5, 1.75, 2.0)
MIN_FACES_READ = 4  # cards read at acting confidence at the best scale, at the least
# A four-colour deck prints its diamonds blue and its clubs green: of the number cards read (their
# print only pips and indexes: a court card's picture has blue and green in every deck), at least
# FOUR_COLOUR_CARDS and FOUR_COLOUR_SHARE of them printed so.
FOUR_COLOUR_CARDS = 2
FOUR_COLOUR_SHARE = 0.2
MIN_NUMBER_CARDS = 4  # fewer number cards read say nothing of the colours: the file's are kept
NUMBER_RANKS = frozenset("A23456789T")
# ink as the shoe's mouth sees it (vision.mouth: INK_DARK of the paper's value, or INK_SATURATION)
INK_VALUE = 0.45  # of the paper's value: coloured ink at least this bright (black ink is darker)
PRINTED_SHARE = 0.01  # of the card's middle, at least this much coloured ink to say what colour
MIDDLE = 0.12  # of each side of the card left out: its edge, where the cloth shows past an outline


@dataclass(frozen=True)
class LearnedFaces:
    index_scale: float
    four_colour: bool
    read: dict[float, tuple[int, float]]  # each index scale tried: (cards read, their summed confidence)
    blue_or_green: tuple[int, int]  # number cards printed blue or green, of the number cards read
    skipped: list[str]  # the frames skipped, with why
    set_aside: SetAside | None = None  # the file was damaged: kept there, and a new one begun

    @property
    def colours_learned(self) -> bool:
        """False: too few number cards read (MIN_NUMBER_CARDS), the file's colours kept."""
        return self.blue_or_green[1] >= MIN_NUMBER_CARDS


def learn_faces(
    frames: Iterable[Frame | Skipped], backs_file: Path, reader: CardReader | None = None
) -> LearnedFaces:
    """Learn the deck's faces from frames of its cards face up (whole, apart: a dozen of them, any
    cards) and write them into ``backs_file`` (its backs are kept): the size of its index and
    whether it is four-colour. Each scale of INDEX_SCALES reads the frames: the one that reads the
    most cards at acting confidence (then the surest) is the deck's, because a window too small
    cuts the index's suit off and one too large shows it too small to be read. The deck is
    four-colour where its number cards read at that scale are printed blue or green
    (FOUR_COLOUR_CARDS, FOUR_COLOUR_SHARE): the classifier knows red and dark ink, and reads a
    blue diamond as a spade now and then (vision.index_patch.normalise). With fewer than
    MIN_NUMBER_CARDS number cards read, the file's colours are kept. ``reader``: the one to
    read with (by default one with the file's backs), at each scale in turn."""
    images, skipped = _images(frames, "cards face up")
    backs, set_aside = _backs_to_learn_into(backs_file)
    reader = (reader or CardReader(backs=backs)).for_deck(four_colour=False).without_straight_edges()
    read: dict[float, tuple[int, float]] = {}
    sightings: dict[float, list[tuple[BGRImage, CardSighting]]] = {}
    for scale in INDEX_SCALES:
        at_scale = reader.for_deck(index_scale=scale)
        sightings[scale] = [
            (image, card)
            for image in images
            for card in at_scale.read(image)
            if card.card is not None and card.confidence >= ACT_CONFIDENCE
        ]
        read[scale] = (len(sightings[scale]), round(sum(card.confidence for _, card in sightings[scale]), 3))
    best = max(INDEX_SCALES, key=lambda scale: read[scale])
    if read[best][0] < MIN_FACES_READ:
        raise BacksError(
            f"{read[best][0]} card(s) read at the best index size of {len(images)} frame(s): give "
            f"frames with at least {MIN_FACES_READ} of the deck's cards face up, whole and apart, in "
            "the table's light"
        )
    numbers = [(image, card) for image, card in sightings[best] if card.rank in NUMBER_RANKS]
    coloured = sum(_blue_or_green_print(image, card) for image, card in numbers)
    four_colour = (
        coloured >= FOUR_COLOUR_CARDS and coloured >= FOUR_COLOUR_SHARE * len(numbers)
        if len(numbers) >= MIN_NUMBER_CARDS
        else backs.four_colour
    )
    save_backs(replace(backs, index_scale=best, four_colour=four_colour, faces_learned=True), backs_file)
    return LearnedFaces(best, four_colour, read, (coloured, len(numbers)), skipped, set_aside)


def _blue_or_green_print(image: BGRImage, card: CardSighting) -> bool:
    """Whether most of the ink in the card's middle (its pips) is bright blue or green: a black pip
    in cool light is saturated too, but dark, and the cloth past a loose outline is kept out."""
    face = upright(image, np.array(card.corners, np.float32))
    h, w = face.shape[:2]
    middle = cv2.cvtColor(
        face[round(MIDDLE * h) : round((1 - MIDDLE) * h), round(MIDDLE * w) : round((1 - MIDDLE) * w)],
        cv2.COLOR_BGR2HSV,
    )
    hue, saturation, value = channels(middle)
    paper = float(np.percentile(value, 90))
    coloured = saturation >= INK_SATURATION
    ink = (value < INK_DARK * paper) | coloured
    if ink.sum() < PRINTED_SHARE * ink.size:
        return False
    printed = coloured & (value >= INK_VALUE * paper) & blue_or_green(hue)
    return bool(printed.sum() * 2 > ink.sum())
