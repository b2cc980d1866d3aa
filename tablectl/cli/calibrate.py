"""`tablectl vision calibrate`: the table's zones drawn on a frame of each camera, and the backs
of the decks in use learned from a few frames (vision/calibrate.py does the work; this reads the
table's config, which vision/ may not import)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

DEFAULT_CONFIG = "/etc/tablectl/table.toml"
LIVE_DEFAULT = "127.0.0.1:8090"


def add_calibrate_parser(vision_sub: Any) -> None:
    calibrate = vision_sub.add_parser(
        "calibrate",
        help="draw the table's zones on a frame of each camera (an image file to check them), or "
        "learn a deck's back from frames of it face down (--backs), or its faces (the size of their "
        "index, two or four colours) from frames of them face up (--faces)",
        description="Without --backs: for each camera of the config (or --camera), take a frame (from "
        "the camera, or --frame), draw its zones and the cards found, and write zones-<camera>.png "
        "into --out. With --backs: learn the back of the deck --deck from the face-down cards on the "
        "images given, into the file [vision] backs names (or --backs-file). With --faces: learn the "
        "size of the decks' index (a jumbo index is larger than a normal one) and whether their faces "
        "are four-colour (blue diamonds, green clubs) from their cards face up on the images given, "
        "into the same file.",
    )
    calibrate.add_argument(
        "--config", default=DEFAULT_CONFIG, help=f"the table's config (default {DEFAULT_CONFIG})"
    )
    calibrate.add_argument("--camera", help="only this camera ([cameras.<name>])")
    calibrate.add_argument(
        "--frame", help="draw on this image instead of a frame from the camera (needs --camera)"
    )
    calibrate.add_argument("--out", default=".", help="the folder for zones-<camera>.png (default: here)")
    calibrate.add_argument(
        "--live",
        nargs="?",
        const=LIVE_DEFAULT,
        metavar="[HOST:]PORT",
        help=f"show one camera's frames with the zones drawn, live, at http://HOST:PORT/ (default "
        f"{LIVE_DEFAULT}: the Pi's own screen; the view shows the players' cards, so give another "
        "host only for the installer's visit) until Ctrl-C",
    )
    calibrate.add_argument(
        "--backs",
        nargs="*",
        metavar="IMAGE",
        help="images or folders of the deck's cards face down, whole, apart; none: five frames "
        "from the camera (--camera)",
    )
    calibrate.add_argument(
        "--faces",
        nargs="*",
        metavar="IMAGE",
        help="images or folders of a dozen of the deck's cards face up, whole, apart; none: five "
        "frames from the camera (--camera)",
    )
    calibrate.add_argument(
        "--plane",
        action="store_true",
        help="measure a camera looking across the table: lay a sheet of A4 flat on the cleared "
        "cloth, in view, its long side along the table's edge nearest the camera; prints the "
        "camera's plane and plane_mm lines (needs --camera; --frame reads an image instead of the "
        "camera)",
    )
    calibrate.add_argument(
        "--sheet-mm",
        nargs=2,
        type=float,
        default=(297.0, 210.0),
        metavar=("ACROSS", "DEEP"),
        help="the sheet's sides in mm: across the camera's view, then along it (default: A4 laid "
        "landscape, 297 210)",
    )
    calibrate.add_argument(
        "--deck", default="deck", help="the name of the deck whose back is learned (e.g. red)"
    )
    calibrate.add_argument(
        "--backs-file", help="where the backs are kept (default: the config's [vision] backs)"
    )
    calibrate.set_defaults(func=cmd_vision_calibrate)


def cmd_vision_calibrate(args: argparse.Namespace) -> int:
    from tablectl.service.tablefile import load_table_config

    table_file = load_table_config(args.config)
    if args.backs is not None and args.faces is not None:
        raise ValueError("--backs and --faces are learned from different frames: give one at a time")
    if args.backs is not None:
        return _learn(args, table_file)
    if args.faces is not None:
        return _learn_faces(args, table_file)
    cameras = _cameras(args, table_file)
    if args.plane:
        return _plane(args, cameras)
    if args.live is not None:
        return _live(args, cameras, table_file)
    if args.frame and len(cameras) != 1:
        raise ValueError("--frame is one camera's frame: name the camera with --camera")
    assert table_file.vision is not None  # _cameras refused a config without cameras
    return _draw(args, cameras, _reader(table_file.vision.backs))


def _cameras(args: argparse.Namespace, table_file: Any) -> Any:
    vision = table_file.vision
    if vision is None:
        raise table_file.error(
            "cameras", "no camera is configured: add [cameras.<name>] sections (deploy/table.example.toml)"
        )
    if not args.camera:
        return vision.cameras
    cameras = tuple(c for c in vision.cameras if c.name == args.camera)
    if not cameras:
        names = ", ".join(c.name for c in vision.cameras)
        raise ValueError(f"{table_file.path}: no camera {args.camera!r}; the config has: {names}")
    return cameras


def _reader(backs: Path | None) -> Any:
    from vision.backs import load_backs
    from vision.reader import CardReader

    return CardReader(backs=load_backs(backs) if backs is not None and backs.exists() else None)


def _draw(args: argparse.Namespace, cameras: Any, reader: Any) -> int:
    import cv2

    from vision.calibrate import draw_zones
    from vision.crops import camera_reader

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for camera in cameras:
        image = _one_frame(args, camera)
        if image is None:
            failed += 1
            continue
        cards = camera_reader(reader, camera).read(image)  # as the camera adapter reads it
        path = out / f"zones-{camera.name}.png"
        cv2.imwrite(str(path), draw_zones(image, camera, cards))
        zones = ", ".join(zone.name for zone in camera.zones)
        print(
            f"{camera.device_name}: {path} ({camera.size[0]}x{camera.size[1]}, zones {zones}, "
            f"{len(cards)} card(s) found)"
        )
    return 1 if failed else 0


def _one_frame(args: argparse.Namespace, camera: Any) -> Any:
    """The frame to draw on: --frame, else one from the camera; None (said why) where there is
    none or it is of another size than the camera's."""
    from vision.calibrate import check_size, grab_frame
    from vision.sources import Frame, SourceError, read_image

    try:
        if args.frame:
            item = read_image(Path(args.frame))
            if not isinstance(item, Frame):
                raise SourceError(f"{item.label}: {item.reason}")
            check_size(camera, item.image, args.frame)
            return item.image
        image = grab_frame(camera)
        check_size(camera, image, f"the {camera.device_name}'s frame")
        return image
    except SourceError as error:
        print(f"{camera.device_name}: {error}")
        return None


def _plane(args: argparse.Namespace, cameras: Any) -> int:
    """The camera's plane measured from a sheet of paper on the cloth: the lines to add to its
    config section, and the frame drawn with the sheet and the zones seen through it."""
    import dataclasses

    import cv2

    from vision.calibrate import draw_zones
    from vision.view import View, ViewError, find_sheet
    from vision.zones import TablePlane

    if len(cameras) != 1:
        raise ValueError("--plane measures one camera: name it with --camera")
    camera = cameras[0]
    image = _one_frame(args, camera)
    if image is None:
        return 1
    corners = find_sheet(image)
    if corners is None:
        print(
            f"{camera.device_name}: no sheet of paper found: lay a sheet of A4 flat on the cleared "
            "cloth, all of it in view and nothing on it, and run this again"
        )
        return 1
    plane = TablePlane(tuple((round(x, 1), round(y, 1)) for x, y in corners), tuple(args.sheet_mm))
    try:
        View.of(plane, camera.size, camera.zones)
    except ViewError as error:
        print(f"{camera.device_name}: the sheet found gives no usable view: {error}")
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"plane-{camera.name}.png"
    cv2.imwrite(str(path), draw_zones(image, dataclasses.replace(camera, plane=plane)))
    points = ", ".join(f"[{x:g}, {y:g}]" for x, y in plane.corners)
    across, deep = plane.size_mm
    print(
        f"{camera.device_name}: a sheet found, drawn in {path}; add to [cameras.{camera.name}]:\n"
        f"plane = [{points}]\nplane_mm = [{across:g}, {deep:g}]"
    )
    return 0


def _live(args: argparse.Namespace, cameras: Any, table_file: Any) -> int:
    from tablectl.cli.live_zones import LiveZones, serve_live

    if len(cameras) != 1:
        raise ValueError("--live shows one camera: name it with --camera")
    host, _, port = str(args.live).rpartition(":")
    if not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(f"--live {args.live}: give [HOST:]PORT, e.g. --live {LIVE_DEFAULT}")
    assert table_file.vision is not None
    live = LiveZones(cameras[0], _reader(table_file.vision.backs)).start()
    try:
        serve_live(
            live,
            host or "127.0.0.1",
            int(port),
            ready=lambda address: print(
                f"{cameras[0].device_name}: live zones at {address} (Ctrl-C stops)", flush=True
            ),
        )
    except KeyboardInterrupt:
        pass
    finally:
        live.stop()
    return 0


def _backs_file(args: argparse.Namespace, table_file: Any) -> Path:
    vision = table_file.vision
    if args.backs_file:
        return Path(args.backs_file)
    if vision is not None and vision.backs is not None:
        return Path(vision.backs)
    raise table_file.error(
        "vision.backs",
        'no file to keep the backs in: add backs = "/var/lib/tablectl/backs.json" under [vision], '
        "or give --backs-file",
    )


def _frames(args: argparse.Namespace, table_file: Any, images: list[str], option: str) -> Any:
    """The frames to learn from: the image files given, else five frames from the camera. A camera
    looking across the table (its config's plane) has them seen from above, as it is read; image
    files too when --camera names it (they must then be its frames, at its size)."""
    from vision.calibrate import grab_frames
    from vision.sources import Frame, ImageFiles, SourceError

    if images:
        frames = ImageFiles(images).frames()
        return _seen_from_above(_cameras(args, table_file)[0], frames) if args.camera else frames
    cameras = _cameras(args, table_file)
    if len(cameras) != 1:
        raise ValueError(f"{option} without images takes frames from one camera: name it with --camera")
    try:
        grabbed = grab_frames(cameras[0], 5)
    except SourceError as error:
        raise ValueError(f"{error}: check the camera, or give image files after {option}") from None
    frames = (Frame(f"{cameras[0].device_name} frame {n}", image) for n, image in enumerate(grabbed))
    return _seen_from_above(cameras[0], frames)


def _seen_from_above(camera: Any, frames: Any) -> Any:
    """``frames`` of ``camera`` as its reader sees them: warped to the table seen from above where
    it looks across the table; a frame of another size is skipped, with why."""
    from vision.calibrate import check_size
    from vision.sources import Frame, Skipped, SourceError
    from vision.view import View

    if camera.plane is None:
        yield from frames
        return
    view = View.of(camera.plane, camera.size, camera.zones)
    for item in frames:
        if isinstance(item, Frame):
            try:
                check_size(camera, item.image, item.label)
            except SourceError as error:
                yield Skipped(item.label, str(error))
                continue
            yield Frame(item.label, view.warp(item.image))
        else:
            yield item


def _learn_faces(args: argparse.Namespace, table_file: Any) -> int:
    from vision.calibrate import MIN_NUMBER_CARDS, learn_faces

    backs_file = _backs_file(args, table_file)
    learned = learn_faces(_frames(args, table_file, args.faces, "--faces"), backs_file)
    for line in learned.skipped:
        print(f"skipped {line}")
    _say_set_aside(learned.set_aside, backs_file)
    tried = ", ".join(f"{s:g}: {n}" for s, (n, _) in learned.read.items())
    coloured, numbers = learned.blue_or_green
    colours = "four-colour (blue diamonds, green clubs)" if learned.four_colour else "two-colour"
    print(
        f"index size {learned.index_scale:g} times the standard window learned: {backs_file} "
        f"(cards read at each size: {tried})"
    )
    if learned.colours_learned:
        print(f"faces {colours}: {coloured} of the {numbers} number card(s) read printed blue or green")
    else:
        print(
            f"faces' colours not learned, kept {colours}: {numbers} number card(s) read; give frames "
            f"with at least {MIN_NUMBER_CARDS} cards from ace to ten, diamonds or clubs among them"
        )
    return 0


def _say_set_aside(set_aside: Any, backs_file: Path) -> None:
    if set_aside is not None:
        print(
            f"{set_aside.why}: kept as {set_aside.path}, and {backs_file} begun anew: learn the "
            "other decks' backs (--backs) and their faces (--faces) again if they were in it"
        )


def _learn(args: argparse.Namespace, table_file: Any) -> int:
    from vision.calibrate import learn_backs

    backs_file = _backs_file(args, table_file)
    frames = _frames(args, table_file, args.backs, "--backs")
    learned = learn_backs(args.deck, frames, backs_file)
    back, left_out = learned.back, learned.left_out
    for line in learned.skipped:
        print(f"skipped {line}")
    _say_set_aside(learned.set_aside, backs_file)
    unlike = f"; {left_out} card(s) unlike the others left out (a face among the backs?)" if left_out else ""
    print(
        f"{back.name} back learned from {back.samples} face-down card(s){unlike}: {backs_file} "
        f"(colour within {back.colour_limit:.2f}, texture within {back.texture_limit:.2f})"
    )
    return 0
