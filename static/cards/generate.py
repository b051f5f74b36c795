#!/usr/bin/env python3
"""Generate the playing-card SVG images used by the web UI.

Run from anywhere:  python static/cards/generate.py

Writes 52 card faces named by their PHH code (rank + suit, e.g. ``Ah.svg``,
``Tc.svg``) and ``back.svg`` next to this script. Standard library only.
The output is deterministic, so running the script again gives the same files.
"""

from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent

RANKS = "23456789TJQKA"
SUITS = "hdcs"

RANK_LABEL = {"T": "10"}
RANK_NAME = {
    "2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six",
    "7": "Seven", "8": "Eight", "9": "Nine", "T": "Ten",
    "J": "Jack", "Q": "Queen", "K": "King", "A": "Ace",
}
SUIT_NAME = {"h": "hearts", "d": "diamonds", "c": "clubs", "s": "spades"}
# Numeric character references keep the files ASCII. U+FE0E (text
# presentation selector) stops some platforms drawing hearts and diamonds
# as colour emoji.
SUIT_SYMBOL = {
    "h": "&#9829;&#65038;",
    "d": "&#9830;&#65038;",
    "c": "&#9827;&#65038;",
    "s": "&#9824;&#65038;",
}
RED = "#c0392b"
BLACK = "#111"
SUIT_COLOR = {"h": RED, "d": RED, "c": BLACK, "s": BLACK}

W, H = 60, 84
FONT = "font-family=\"Georgia,'Times New Roman',serif\""

FRAME = (
    f'<rect x="0.5" y="0.5" width="{W - 1}" height="{H - 1}" rx="5" '
    'fill="#fff" stroke="#999"/>'
)


def card_svg(rank: str, suit: str) -> str:
    label = RANK_LABEL.get(rank, rank)
    symbol = SUIT_SYMBOL[suit]
    title = f"{RANK_NAME[rank]} of {SUIT_NAME[suit]}"
    # "10" is two glyphs wide: squeeze it into the corner.
    squeeze = ' textLength="11" lengthAdjust="spacingAndGlyphs"' if len(label) > 1 else ""
    corner = (
        f'<text x="7" y="16" font-size="14" font-weight="bold"{squeeze}>{label}</text>'
        f'<text x="7" y="28" font-size="12">{symbol}</text>'
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 84" '
        f'width="{W}" height="{H}">'
        f"<title>{title}</title>"
        f"{FRAME}"
        f'<g fill="{SUIT_COLOR[suit]}" text-anchor="middle" {FONT}>'
        f"<g>{corner}</g>"
        f'<g transform="rotate(180 30 42)">{corner}</g>'
        f'<text x="30" y="53" font-size="32">{symbol}</text>'
        "</g></svg>\n"
    )


def back_svg() -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 84" '
        f'width="{W}" height="{H}">'
        "<title>Card back</title>"
        "<defs>"
        '<pattern id="p" width="6" height="6" patternUnits="userSpaceOnUse">'
        '<rect width="6" height="6" fill="#7b1620"/>'
        '<path d="M3 0L6 3L3 6L0 3Z" fill="#9e2a33"/>'
        "</pattern>"
        "</defs>"
        f"{FRAME}"
        f'<rect x="4" y="4" width="{W - 8}" height="{H - 8}" rx="3" '
        'fill="url(#p)" stroke="#5a0f16"/>'
        f'<rect x="7" y="7" width="{W - 14}" height="{H - 14}" rx="2" '
        'fill="none" stroke="#e8c9a0" stroke-width="0.8"/>'
        "</svg>\n"
    )


def main() -> None:
    count = 0
    for suit in SUITS:
        for rank in RANKS:
            (OUT_DIR / f"{rank}{suit}.svg").write_text(card_svg(rank, suit), encoding="ascii")
            count += 1
    (OUT_DIR / "back.svg").write_text(back_svg(), encoding="ascii")
    count += 1
    print(f"wrote {count} SVG files to {OUT_DIR}")


if __name__ == "__main__":
    main()
