"""The rules' words (zilch_env/rules/words.toml, read by zilch_env.rules.words): the catalogue is
complete in every language, names only real ruleset keys whose values load, and its lines said
whenever a key is set appear in a summary exactly when that key is set; a faulty catalogue is
refused with an error naming the entry."""

from __future__ import annotations

import re

import pytest

from zilch_env import PRESETS, Ruleset, RulesetError, load_ruleset
from zilch_env.engine.text import RULES_TEXT, rules_lines, rules_summary, say_line
from zilch_env.rules.words import LANGS, WORDS_FILE, is_set, read_rule_words, rule_words, ruleset_value

WORDS = rule_words()


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_every_language_has_every_line_and_no_other():
    assert LANGS[0] == "en" and set(WORDS.lines) == set(LANGS)
    for lang in LANGS:
        assert list(WORDS.lines[lang]) == list(WORDS.lines["en"]), lang
        for key, en in WORDS.lines["en"].items():
            assert WORDS.lines[lang][key].strip(), (lang, key)
            assert placeholders(WORDS.lines[lang][key]) == placeholders(en), (lang, key)
    assert RULES_TEXT == WORDS.lines["en"]


def test_every_line_rules_lines_says_is_in_the_catalogue():
    used = set()
    for name in PRESETS:
        for tg in WORDS.toggles:
            for value in (tg.on, tg.off, *tg.choices):
                for key, values in rules_lines(load_ruleset(name, {tg.key: value})):
                    used.add(key)
                    used.update(k for k, _ in values.get("items", []))
    assert used <= set(WORDS.lines["en"]), used - set(WORDS.lines["en"])


def test_every_toggle_has_its_words_in_every_language():
    assert WORDS.toggles and len({tg.key for tg in WORDS.toggles}) == len(WORDS.toggles)
    for tg in WORDS.toggles:
        for lang in LANGS:
            assert tg.label[lang].strip() and tg.help[lang].strip(), (tg.key, lang)
            assert len(tg.choice_labels[lang]) == len(tg.choices), (tg.key, lang)
            assert all(x.strip() for x in tg.choice_labels[lang]), (tg.key, lang)
        assert set(tg.label) == set(tg.help) == set(tg.choice_labels) == set(LANGS), tg.key


@pytest.mark.parametrize("preset", PRESETS)
def test_the_keys_are_ruleset_keys_whose_values_load(preset):
    """Each toggle's on and off values and each of its choices load as overrides of every preset (a
    ruleset key the loader accepts, a value it holds); each said-when-set key is a ruleset key too."""
    for tg in WORDS.toggles:
        for value in (tg.on, tg.off, *tg.choices):
            rs = load_ruleset(preset, overrides={tg.key: value})
            assert ruleset_value(rs, tg.key) == ruleset_value(load_ruleset("zonk", {tg.key: value}), tg.key)
        assert is_set(load_ruleset(preset, overrides={tg.key: tg.on}), tg.key), tg.key
        assert not is_set(load_ruleset(preset, overrides={tg.key: tg.off}), tg.key), tg.key
    toggled = {tg.key: tg.on for tg in WORDS.toggles}
    for key, line in WORDS.said_when_set:
        assert line in WORDS.lines["en"]
        on = toggled.get(key, ruleset_value(Ruleset(), key))
        load_ruleset(preset, overrides={key: on})


def test_a_said_when_set_line_appears_exactly_when_its_key_is_set():
    """After every other line, in the catalogue's order, with ``n`` the key's value."""
    said = [line for _, line in WORDS.said_when_set]
    assert said == ["bonus", "piggyback", "overcoming", "challenge", "hot_bonus"]
    seen = set()
    for name in PRESETS:
        for tg in WORDS.toggles:
            for value in (tg.on, tg.off):
                rs = load_ruleset(name, {tg.key: value})
                lines = rules_lines(rs)
                keys = [k for k, _ in lines]
                want = [(line, {"n": ruleset_value(rs, key)}) for key, line in WORDS.said_when_set
                        if ruleset_value(rs, key) != ruleset_value(Ruleset(), key)]
                assert lines[len(lines) - len(want):] == want, (name, tg.key, value)
                assert not set(said) & set(keys[:len(lines) - len(want)]), (name, tg.key, value)
                seen.update(k for k in keys if k in said)
    assert seen == set(said)  # each line is said by some ruleset, each left out by another
    bonus = load_ruleset("zonk", {"variants.six_dice_zilch_bonus": 750, "variants.challenge": True})
    assert rules_summary(bonus).split("\n")[-2:] == [
        "Six dice and no score: 750 points instead of a zilch, then bank or roll six fresh dice.",
        say_line(("challenge", {}))]


CATALOGUE = WORDS_FILE.read_text(encoding="utf-8")


@pytest.mark.parametrize(("edit", "error"), [
    (lambda t: t.replace('[lines.sv]\ntitle = ', '[lines.sv]\nnot_title = '),
     r"lines\.sv must have the keys of lines\.en; missing \['title'\], not in lines\.en \['not_title'\]"),
    (lambda t: t.replace('[lines.pt-BR]\ntitle = "{name}', '[lines.pt-BR]\ntitle = "{nome}'),
     r"lines\.pt-BR\.'title' has the placeholders \['dice', 'nome', 'target'\]; lines\.en has"),
    (lambda t: t.replace('key = "variants.piggyback"\nline', 'key = "variants.piggy"\nline'),
     r"said_when_set\[1\]: 'variants\.piggy' is not a ruleset key"),
    (lambda t: t.replace('line = "bonus"', 'line = "bonuses"'),
     r"said_when_set\[0\]: line 'bonuses' is not a key of \[lines\.en\]"),
    (lambda t: t.replace('key = "score_floor"', 'key = "score.floor"'),
     r"toggles\[2\] \(score\.floor\): 'score\.floor' is not a ruleset key"),
    (lambda t: t.replace('choices = ["kostar 500", ', 'choices = ['),
     r"toggles\[8\] \(variants\.zilch_penalty\)\.sv\.choices: 2 labels for 3 choices"),
    (lambda t: t.replace('[toggles.sv]\nlabel = "Direkt vinst"\n', '[toggles.sv]\n'),
     r"toggles\[0\] \(end\)\.sv: missing label"),
    (lambda t: t.replace('key = "end"\non = "instant"', 'key = "end"\nwhen_on = "instant"'),
     r"toggles\[0\]: unknown keys \['when_on'\]"),
    (lambda t: t.replace('[lines.en]\ntitle = "{name}: {dice} dice', '[lines.en]\ntitle = 3 #'),
     r"lines\.en\.'title' must be a string, not 3"),
    (lambda t: t + "\n[lines.en\n", r"not valid TOML"),
])
def test_a_faulty_catalogue_is_refused_naming_the_entry(edit, error):
    text = edit(CATALOGUE)
    assert text != CATALOGUE
    with pytest.raises(RulesetError, match=error):
        read_rule_words(text)


def test_ruleset_value_reads_dotted_keys():
    rs = load_ruleset("zonk", {"variants.zilch_penalty": {"count": 3, "points": 500, "mode": "halve"}})
    assert ruleset_value(rs, "variants.zilch_penalty.mode") == "halve"
    assert ruleset_value(rs, "target") == rs.target
    for bad in ("variants.nope", "target.x", "variants.zilch_penalty.mode.x", ""):
        with pytest.raises(KeyError, match="not a ruleset key"):
            ruleset_value(rs, bad)
