"""Plain text out of document files: byte checks and decoding, HTML, PDF.

Functions here return ``None`` for a file that must be skipped, after telling ``warn`` why;
they never raise for a user's bad file, whatever its bytes (the loader decides what is fatal).
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from collections.abc import Callable
from html.parser import HTMLParser

Warn = Callable[[str], None]

BINARY_SNIFF_BYTES = 8192

# Elements whose content is not document text.
_HIDDEN_ELEMENTS = frozenset({"head", "script", "style", "noscript", "template"})
# Elements that end a paragraph, and elements that only end a line.
_PARAGRAPH_ELEMENTS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "nav",
        "aside",
        "blockquote",
        "pre",
        "table",
        "ul",
        "ol",
        "dl",
        "figure",
        "form",
        "fieldset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "details",
        "summary",
        "address",
    }
)
_LINE_ELEMENTS = frozenset({"br", "li", "tr", "dt", "dd", "caption", "figcaption", "option"})
_CELL_ELEMENTS = frozenset({"td", "th"})
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")  # not U+00A0: &nbsp; is kept


def decode_bytes(raw: bytes, display: str, warn: Warn) -> str | None:
    """The file's text, or None (with a warning) when it is empty, blank or binary.

    Binary means a NUL byte in the first 8 KiB. Text that is not valid UTF-8 is decoded with
    U+FFFD replacement characters, and ``warn`` names the file. A UTF-8 BOM is dropped.
    """
    if b"\0" in raw[:BINARY_SNIFF_BYTES]:
        warn(f"{display}: looks binary (NUL bytes; UTF-16 text must be saved as UTF-8); skipped")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        warn(f"{display}: not valid UTF-8 (first bad byte at offset {exc.start}); decoded with replacement characters")
    text = text.removeprefix("\ufeff")
    if not text.strip():
        warn(f"{display}: empty or whitespace only; skipped")
        return None
    return text


class _HTMLText(HTMLParser):
    """Collects the visible text of an HTML page; block elements become line breaks.

    Breaks are held back until the next visible text, so adjacent block boundaries give one
    break (the stronger of them) and whitespace-only text between blocks gives none.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden_depth = 0
        self.pre_depth = 0
        self.pending_break = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # a missing </head> ends at <body>, as in browsers
            self.hidden_depth = 0
        if tag in _HIDDEN_ELEMENTS:
            self.hidden_depth += 1
        self._break(tag)
        if tag in _CELL_ELEMENTS and not self.pending_break:
            self.parts.append(" ")
        if tag == "pre":
            self.pre_depth += 1

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        """``<![keyword[ … ]]>``: as the base class, but an unknown keyword (``<![foo[``), on which
        the base class raises AssertionError, is dropped up to its ``]>``."""
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:
            end = self.rawdata.find("]>", i + 3)
            return -1 if end < 0 else end + 2

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._break(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_ELEMENTS:
            self.hidden_depth = max(0, self.hidden_depth - 1)
        if tag == "pre":
            self.pre_depth = max(0, self.pre_depth - 1)
        self._break(tag)

    def handle_data(self, data: str) -> None:
        if self.hidden_depth:
            return
        if not self.pre_depth:
            data = _HTML_SPACE.sub(" ", data)
            if self.pending_break or not self.parts:
                data = data.lstrip(" ")
        if not data:
            return
        if self.pending_break:
            self.parts.append(self.pending_break)
            self.pending_break = ""
        self.parts.append(data)

    def _break(self, tag: str) -> None:
        if self.hidden_depth:
            return
        if tag in _PARAGRAPH_ELEMENTS:
            self.pending_break = "\n\n"
        elif tag in _LINE_ELEMENTS and not self.pending_break:
            self.pending_break = "\n"


def html_to_text(html: str) -> str:
    """Visible text of an HTML document.

    Drops head, script, style, noscript and template content; entities are unescaped;
    paragraph-level elements become blank lines, br/li/tr line breaks, table cells spaces;
    runs of HTML whitespace outside ``<pre>`` collapse to one space; line ends are trimmed.
    """
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return "\n".join(line.rstrip() for line in "".join(parser.parts).split("\n")).strip()


def pdf_to_text(data: bytes, display: str, warn: Warn) -> str | None:
    """Page texts of the PDF ``data`` joined by blank lines (needs pypdf), or None with a warning
    when it cannot be parsed or has no text layer. pypdf's own log lines and warnings about a
    damaged file are silenced: the one warning naming the file says it."""
    from pypdf import PdfReader

    pypdf_log = logging.getLogger("pypdf")  # its modules log to children of this logger
    level = pypdf_log.level
    pypdf_log.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(io.BytesIO(data))
            pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except Exception as exc:  # pypdf raises many types for damaged or encrypted files
        reason = " ".join(str(exc).split())[:200]
        warn(f"{display}: could not read PDF ({type(exc).__name__}: {reason}); skipped")
        return None
    finally:
        pypdf_log.setLevel(level)
    text = "\n\n".join(page for page in pages if page)
    if not text:
        warn(f"{display}: PDF has no text layer (scanned?); skipped")
        return None
    return text
