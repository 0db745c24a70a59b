"""One self-contained HTML page per stored session: analysis, eval, or a comparison of two evals.

Made from stored data only (no recomputation, no network): :mod:`ragcov_tui.services.html_export`
reads the session and hands typed data to the page builders here. Each page is one file: the
Bokeh library, the charts, the styles and the table script are all inline, so it opens from disk
with the network off. Untrusted text (documents, questions, answers, file names, model replies)
is made visible (:func:`ragcov_tui.shared.safe_text.visible`) and HTML-escaped by Jinja2's autoescape;
chart data travels as JSON inside Bokeh's own script (which escapes ``</``); a strict
Content-Security-Policy allows only the page's own inline scripts, by their SHA-256 hashes, and
loads nothing from anywhere.
"""
