"""Offline themes: text units of any language (coverage.lexicon) and distinctive c-TF-IDF themes (coverage.ctfidf)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from ragcov_tui.coverage import lexicon
from ragcov_tui.coverage.ctfidf import class_terms, cluster_themes, display, select_themes
from ragcov_tui.coverage.term_counts import count_terms

# ---- segments and words -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Quick search finds pages. Search operators narrow it.",
            [["quick", "search", "finds", "pages"], ["search", "operators", "narrow", "it"]],
        ),
        ("Owners, Admins and Members", [["owners"], ["admins", "and", "members"]]),
        ("Open **Settings → Admin console**", [["open"], ["settings"], ["admin", "console"]]),
        ("Run `skein sync --force` now", [["run"], ["now"]]),
        ("See https://example.com/a/b for more", [["see"], ["for", "more"]]),
        ("```\ncode block here\n```\nAfter the code", [["after", "the", "code"]]),
        ("Sign-in (SSO) works", [["sign-in"], ["sso"], ["works"]]),
        ("Größe der Datei; Übersicht", [["größe", "der", "datei"], ["übersicht"]]),
        ("Настройка прокси-сервера. Быстрый поиск", [["настройка", "прокси-сервера"], ["быстрый", "поиск"]]),
        ("Работа с модификаторами", [["работа", "с", "модификаторами"]]),
        ("数据库 设置", [["数据"], ["据库"], ["设置"]]),
        ("使用API密钥", [["使用"], ["api"], ["密钥"]]),
        ("a b c 1 2 3", [["a", "b", "c"]]),
        ('<span style="color:red">Quick</span> search {{ value }} here', [["quick"], ["search"], ["here"]]),
        ("## Directive hooks {#directive-hooks}", [["directive", "hooks"]]),
        ("", []),
        ("--- | --- |", []),
        ("company's data", [["company", "s", "data"]]),
        ("SAML 2.0 setup - fast", [["saml"], ["setup"], ["fast"]]),
    ],
)
def test_segments(text: str, expected: list[list[str]]) -> None:
    assert lexicon.segments(text) == expected


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("The admin console is where owners manage people and billing for the organization.", "en"),
        ("Die Verwaltungskonsole ist der Ort, an dem die Eigentümer die Personen und die Abrechnung verwalten.", "de"),
        ("La console est l'endroit où les propriétaires gèrent les personnes et la facturation.", "fr"),
        ("La consola es el lugar donde los propietarios gestionan las personas y la facturación.", "es"),
        ("Консоль администратора — это место, где владельцы управляют людьми и оплатой.", "ru"),
        ("管理控制台是所有者管理人员和账单的地方。", "zh"),
        ("管理コンソールは、所有者がユーザーと請求を管理する場所です。", "ja"),
        ("관리 콘솔은 소유자가 사람과 청구를 관리하는 곳입니다.", "ko"),
        ("12345 67890 !!!", "und"),
        ("", "und"),
        ("Ελληνικά κείμενα εδώ", "und"),
    ],
)
def test_language(text: str, lang: str) -> None:
    assert lexicon.language(text) == lang


def test_headings_with_levels_and_markup() -> None:
    text = "# Title\n\nbody\n\n## **Quick** search ##\n\n   ### Deep `one`\nnot # a heading"
    assert lexicon.headings(text) == [(1, "Title"), (2, "Quick search"), (3, "Deep one")]


def test_corpus_stop_words_come_from_text_frequency() -> None:
    names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    texts = [
        [f"Skein {names[i % 6]} frobnicates {names[(i + 1) % 6]} widgets" for i in range(30)],
        ["spare parts"] * 10,
    ]
    counted = count_terms(texts)
    terms = {counted.term(j) for j in range(counted.counts.shape[1])}
    assert "skein" not in terms and "frobnicates" not in terms  # in every text of the first group: 75 % of all
    assert "alpha" in terms and "spare parts" in terms
    few = count_terms([texts[0][:5], texts[1][:5]])  # too few texts to tell: only the built-in lists
    assert "skein" in {few.term(j) for j in range(few.counts.shape[1])}


# ---- terms ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        (
            "Quick search finds pages",
            {
                "quick",
                "quick search",
                "quick search finds",
                "search",
                "search finds",
                "search finds pages",
                "finds",
                "finds pages",
                "pages",
            },
        ),
        ("The audit log", {"audit", "audit log", "log"}),
        ("terms of service", {"terms", "terms of service", "service"}),
        ("search the index", {"search", "index"}),  # an article does not link a phrase
        ("Verwaltung der Benutzer", {"verwaltung", "verwaltung der benutzer", "benutzer"}),
        ("Работа с модификаторами", {"работа", "работа с модификаторами", "модификаторами"}),
        ("Попробовать в песочнице", {"попробовать", "попробовать в песочнице", "песочнице"}),
        ("of the and", set()),
        ("quick. search", {"quick", "search"}),  # a phrase never crosses a segment
        ("quick, the search", {"quick", "search"}),
        (
            "Настройка прокси-сервера вручную",
            {
                "настройка",
                "прокси-сервера",
                "вручную",
                "настройка прокси-сервера",
                "прокси-сервера вручную",
                "настройка прокси-сервера вручную",
            },
        ),
    ],
)
def test_terms_never_start_or_end_with_a_stop_word_nor_cross_a_segment(text: str, terms: set[str]) -> None:
    counted = count_terms([[text]], min_df=1)
    assert {counted.term(j) for j in range(counted.counts.shape[1])} == terms


def test_term_counts_per_cluster_with_headings_counted_extra() -> None:
    counted = count_terms(
        [["## Quick search\nQuick search is fast.", "Quick search again."], ["Billing plans."]],
        heading_weight=2.0,
        min_df=1,
    )
    j = next(j for j in range(counted.counts.shape[1]) if counted.term(j) == "quick search")
    assert counted.counts[0, j] == 3 + 2 and counted.counts[1, j] == 0
    rare = count_terms([["alpha beta", "gamma"], ["delta"]], min_df=2)
    assert rare.counts.shape[1] == 0  # nothing in two texts


def clusters() -> list[list[str]]:
    """Four topics sharing the product name and 'page' everywhere; each with its own phrases."""
    topics = {
        "search": [
            "Quick search finds a page by title in Skein.",
            "Search operators narrow the quick search in Skein.",
            "## Quick search\nType to search the page index of Skein.",
        ],
        "billing": [
            "The annual plan is billed once a year on the Skein page.",
            "Invoices list the annual plan and the tax details of Skein.",
            "## Tax details\nAdd tax details on the billing page of Skein.",
        ],
        "webhooks": [
            "A webhook endpoint receives a signed payload from Skein for each page change.",
            "Verify the signed payload with the signing secret from Skein.",
            "## Signing secret\nRotate the signing secret of a webhook endpoint on the page.",
        ],
        "sso": [
            "SAML single sign-on connects your identity provider to Skein on the page.",
            "Certificate rotation keeps SAML single sign-on working in Skein.",
            "## Certificate rotation\nUpload the new certificate on the SSO page of Skein.",
        ],
    }
    return [texts * 3 for texts in topics.values()]


def test_themes_are_distinctive_phrases_title_cased() -> None:
    themes, _ = cluster_themes(clusters(), 5)
    assert len(themes) == 4 and all(3 <= len(t) <= 5 for t in themes)
    words = [{w.lower() for theme in t for w in theme.split()} for t in themes]
    for w in set().union(*words):
        assert sum(w in ws for ws in words) <= max(1, 4 // 3), w
    assert all(any(" " in theme for theme in t) for t in themes)
    flat = [theme for t in themes for theme in t]
    assert not any("skein" in theme.lower() or theme.lower() == "page" for theme in flat)
    assert "Quick Search" in themes[0] and "Signing Secret" in themes[2] and "Certificate Rotation" in themes[3]
    assert any(theme.startswith("SAML") for theme in themes[3])  # the corpus's own capitals


def test_no_theme_word_in_more_than_a_third_of_many_clusters() -> None:
    rng = np.random.default_rng(0)
    vocab = ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 6)) for _ in range(400)]
    shared = ["platform", "widget", "account"]
    texts = [
        [" ".join(list(rng.choice(vocab[k * 20 : (k + 1) * 20], 12)) + shared) for _ in range(8)] for k in range(12)
    ]
    themes, _ = cluster_themes(texts, 5)
    words = [{w.lower() for theme in t for w in theme.split()} for t in themes]
    for w in set().union(*words):
        assert sum(w in ws for ws in words) <= 12 // 3


def test_a_phrase_takes_over_its_word_when_it_carries_the_weight() -> None:
    texts = [
        ["Quick search is fast. Quick search is global. Quick search opens with a key."] * 4,
        ["Billing invoices and refunds arrive monthly."] * 4,
    ]
    themes, _ = cluster_themes(texts, 3)
    assert "Quick Search" in themes[0] and "Search" not in themes[0] and "Quick" not in themes[0]


@pytest.mark.parametrize(
    ("texts", "lang_word"),
    [
        (
            [
                ["Быстрый поиск находит страницу. Быстрый поиск работает везде."] * 3,
                ["Платёжные данные хранятся в счёте. Платёжные данные меняет владелец."] * 3,
            ],
            "Быстрый поиск",
        ),  # sentence case outside English
        (
            [
                [
                    "Die Schnellsuche findet jede Seite.",
                    "Mit der Schnellsuche öffnen Sie Räume.",
                    "Die Schnellsuche kennt Filter und Operatoren.",
                    "Filter der Schnellsuche speichern.",
                ],
                [
                    "Die Rechnung zeigt die Zahlungsdaten.",
                    "Die Zahlungsdaten ändert der Besitzer.",
                    "Jede Rechnung kommt per E-Mail.",
                    "Zahlungsdaten und Rechnung prüfen.",
                ],
            ],
            "Schnellsuche",
        ),
        ([["数据库备份每天运行。数据库备份保存七天。"] * 3, ["账单地址可以修改。账单地址显示在发票上。"] * 3], "备份"),
    ],
)
def test_themes_in_other_languages(texts, lang_word: str) -> None:
    themes, _ = cluster_themes(texts, 5)
    assert all(themes) and lang_word in themes[0]


def test_empty_and_stop_word_only_texts_give_no_theme() -> None:
    assert cluster_themes([["the and of"], ["to be"]], 5)[0] == [[], []]
    assert cluster_themes([[], []], 5)[0] == [[], []]
    assert class_terms([["\x1b[31m\x07"]]).weights.shape[1] == 0


def test_display_keeps_acronyms_and_lowers_minor_words() -> None:
    assert display("saml single sign-on", ["Turn on SAML single sign-on now."]) == "SAML Single Sign-on"
    assert display("terms of service", ["Read the terms of service."]) == "Terms of Service"
    assert display("ios app", ["The iOS app syncs."]) == "iOS App"
    assert display("quick search", []) == "Quick Search"


def test_select_themes_respects_n() -> None:
    terms = class_terms(clusters())
    assert all(len(t) <= 2 for t in select_themes(terms, 2))


@pytest.mark.slow
def test_themes_are_fast_on_20k_chunks() -> None:
    rng = np.random.default_rng(1)
    vocab = np.array(["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 7)) for _ in range(5000)])
    k, per = 40, 500
    texts = [
        [
            " ".join(rng.choice(vocab[c * 100 : (c + 1) * 100 + 200], 60)) + ". Shared product words here."
            for _ in range(per)
        ]
        for c in range(k)
    ]
    start = time.perf_counter()
    themes, _ = cluster_themes(texts, 5)
    assert time.perf_counter() - start < 90  # measured 4.8 s alone, 11 s on the loaded 2-core box
    assert all(len(t) >= 3 for t in themes)


@pytest.mark.parametrize(
    ("term", "texts", "shown"),
    [
        (
            "browser deines geräts",
            ["Öffne den Browser deines Geräts.", "Im Browser deines Geräts."],
            "Browser deines Geräts",
        ),
        ("apps und geräte", ["Verbundene Apps und Geräte"], "Apps und Geräte"),
        ("работа с модификаторами", ["Работа с модификаторами событий."], "Работа с модификаторами"),
        ("数据库", ["备份数据库"], "数据库"),
        ("quick search", ["quick search"], "Quick search"),
    ],
)
def test_display_outside_english_keeps_the_corpus_form(term: str, texts: list[str], shown: str) -> None:
    assert display(term, texts, english=False) == shown


def test_admonition_openers_are_not_prose() -> None:
    text = '??? question "Warum haben Bilder das falsche Datum?"\n    Text hier.\n\n:::tip Hinweis\nMehr.\n:::'
    words = {w for seg in lexicon.segments(text) for w in seg}
    assert "question" not in words and "tip" not in words and {"warum", "hinweis", "mehr"} <= words
