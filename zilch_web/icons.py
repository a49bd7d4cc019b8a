"""Draws the web app's icons (``static/icon-192.png``, ``icon-512.png``, ``icon-maskable-512.png``): a white
die showing five on the game's green. Run ``python -m zilch_web.icons`` after changing the design
(needs Pillow); the PNG files are committed, so the server never draws them."""

from __future__ import annotations

from pathlib import Path


def main(out: Path = Path(__file__).with_name("static")) -> None:
    from PIL import Image, ImageDraw

    for size, name, pad in ((192, "icon-192.png", 0.16), (512, "icon-512.png", 0.16), (512, "icon-maskable-512.png", 0.26)):
        s = size * 4
        im = Image.new("RGB", (s, s), "#1f6f5c")
        d = ImageDraw.Draw(im)
        m = int(s * pad)
        d.rounded_rectangle([m, m, s - m, s - m], radius=int(s * 0.1), fill="#ffffff", outline="#1d2330", width=int(s * 0.02))
        r = int(s * 0.055)
        inner = s - 2 * m
        for fx, fy in ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)):
            cx, cy = m + inner * fx, m + inner * fy
            d.ellipse([cx - r, cy - r, cx + r, cy + r], fill="#1d2330")
        im.resize((size, size), Image.LANCZOS).save(out / name, optimize=True)


if __name__ == "__main__":
    main()
