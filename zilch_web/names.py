"""Player names as people see them: normalised, without invisible characters, told apart.

Two seats must never look alike on a phone: a name is NFC with spaces made one
(:func:`clean_name`), and one holding a control, format or invisible character is refused naming
it; two names that read the same (:func:`name_key`: case, compatibility forms and the Cyrillic and
Greek look-alikes of Latin letters ignored) are refused by :func:`zilch_web.seats.name_seats`.
"""

from __future__ import annotations

import unicodedata


class NameRefused(ValueError):
    """A name that cannot be used; the message names the character and why (the table raises it
    again as :class:`zilch_web.table.TableError`)."""


#: Characters a name may not hold though Unicode does not class them as control or format
#: characters: fillers and blanks that show as nothing (Hangul fillers, the braille blank).
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def clean_name(text: str) -> str:
    """A player's name as it is shown: NFC, runs of spaces (any Unicode space) made one, trimmed.

    Refused (:class:`NameRefused` naming the character and its position): control characters (NUL,
    newlines, ...), format characters (zero-width spaces and joiners, right-to-left and other
    direction overrides, the byte-order mark, soft hyphens), line and paragraph separators,
    surrogates, private-use and unassigned code points, and blank fillers (:data:`INVISIBLE`):
    anything that would let two names look the same or change how the page around them reads."""
    name = unicodedata.normalize("NFC", text)
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or ch in INVISIBLE:
            what = {"Cc": "a control character", "Cf": "an invisible formatting character",
                    "Cs": "a lone surrogate", "Co": "a private-use character", "Cn": "an unassigned character",
                    "Zl": "a line separator", "Zp": "a paragraph separator"}.get(cat, "an invisible character")
            label = unicodedata.name(ch, "") or f"U+{ord(ch):04X}"
            raise NameRefused(f"player name {text!r}: character {i + 1} is {what} (U+{ord(ch):04X}"
                             f"{'' if label.startswith('U+') else ' ' + label}); names may hold letters, "
                             "digits, punctuation, symbols and single spaces")
    return " ".join(name.split())


#: Cyrillic and Greek letters drawn like Latin ones (Unicode's confusables, the letters of names):
#: mapped to the Latin letter they look like, so ``Аnn`` (a Cyrillic А) is ``Ann``'s name.
_LOOK_ALIKE = str.maketrans(
    "АВЕКМНОРСТХУаеорсухіјѕԁԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧαορτυνκιϲ",
    "ABEKMHOPCTXYaeopcyxijsdqwABEZHIKMNOPTYXaoptuvkic")


def name_key(name: str) -> str:
    """What two names must not share: the name compatibility-normalised (NFKC: full-width letters,
    ligatures), its Cyrillic and Greek look-alikes of Latin letters read as those letters, and
    case-folded, so ``Ann``, ``ANN``, ``Ａｎｎ`` and ``Аnn`` (a Cyrillic А) are one name."""
    return unicodedata.normalize("NFKC", name).translate(_LOOK_ALIKE).casefold()


