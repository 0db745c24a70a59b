"""HTML to text: hidden elements dropped, block elements as breaks, entities, whitespace."""

from __future__ import annotations

from ragcov_tui.corpus.extract import html_to_text


def test_head_script_style_are_dropped():
    html = (
        "<!doctype html><html><head><title>Title</title><meta charset=utf-8>"
        "<script>alert('x')</script><style>body{color:red}</style></head>"
        "<body><noscript>enable js</noscript><p>Visible</p><script>track()</script></body></html>"
    )
    assert html_to_text(html) == "Visible"


def test_blocks_become_line_breaks_and_inline_text_flows():
    html = (
        "<h2>Billing</h2><p>Invoices are sent <b>monthly</b>,\n   on the <em>first</em> day.</p>"
        "<ul><li>Card</li><li>Wire</li></ul>line<br>break<div>Last</div>"
    )
    assert html_to_text(html) == (
        "Billing\n\nInvoices are sent monthly, on the first day.\n\nCard\nWire\n\nline\nbreak\n\nLast"
    )


def test_entities_are_unescaped():
    assert html_to_text("<p>Fish &amp; chips &lt;3 &eacute;t&#233; &#x263A; &nbsp;ok</p>") == (
        "Fish & chips <3 été ☺ \u00a0ok"
    )


def test_pre_keeps_its_whitespace():
    assert html_to_text("<p>Run:</p><pre>make   all\n  install</pre>") == "Run:\n\nmake   all\n  install"


def test_table_cells_are_separated():
    html = "<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>$10</td></tr></table>"
    assert html_to_text(html) == "Plan Price\nPro $10"


def test_missing_head_end_tag_ends_at_body():
    assert html_to_text("<html><head><title>x</title><body><p>text</p>") == "text"


def test_fragment_without_tags():
    assert html_to_text("just   text") == "just text"
