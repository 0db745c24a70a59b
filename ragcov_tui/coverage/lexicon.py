"""Language-neutral text units for offline themes and questions: segments, words, headings, language.

* **Segments** — the runs of text between sentence and clause punctuation (``. , ; : ! ? ( ) [ ]``,
  quotes, dashes, table bars, line ends…) of a text whose Markdown markup, fenced code, inline
  code and URLs were removed. A phrase never crosses a segment boundary.
* **Words** — Unicode letter runs (``[^\\W\\d_]+``, hyphenated parts kept together), lower-cased.
  Han / kana runs have no spaces, so each becomes its overlapping character bigrams, each its own
  segment (no phrase is built across them). One-letter words stay (as stop words they keep two
  words around them from reading as a phrase).
* **Stop words** — a small built-in list per language (English, German, French, Spanish, Russian),
  which :mod:`~ragcov_tui.coverage.term_counts` unites with the corpus's own: every word found in
  at least :data:`CORPUS_STOP_SHARE` of the texts (given :data:`CORPUS_STOP_MIN_TEXTS` texts or
  more), so a corpus in any language, and a product name found everywhere, loses its filler words
  without an English-only list.
* **Language** — :func:`language`: ``zh`` / ``ja`` for Han or kana script, ``ko`` for Hangul,
  ``ru`` for Cyrillic, else the Latin language whose short function-word signature matches most
  words (``en de fr es``); ASCII-only text with no function word at all counts as English; ``und``
  when nothing matches.
"""

from __future__ import annotations

import re

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RUN = re.compile(f"[{CJK}]+")
WORD = re.compile(f"[{CJK}]+|[^\\W\\d_{CJK}]+(?:-[^\\W\\d_{CJK}]+)*")
FENCED = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
ADMONITION = re.compile(r"^[ \t]*(?:\?\?\?\+?|!!!|:::)[ \t]*[\w-]*", re.MULTILINE)  # mkdocs / VitePress boxes
HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>|\{\{.*?\}\}|\{#[^}\n]*\}")  # tags, template braces, heading anchors
BREAK_CHARS = '\n.!?;:,()\\[\\]{}<>"“”„«»‘’|/\\\\=+*#_~…·•→←–—。、，；：！？（）「」『』【】'
TOKEN = re.compile(f"[{CJK}]+|[^\\W\\d_{CJK}]+(?:-[^\\W\\d_{CJK}]+)*|[{BREAK_CHARS}\\d]+|\\s-+\\s|'(?=\\s)|(?<=\\s)'")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)
CORPUS_STOP_SHARE, CORPUS_STOP_MIN_TEXTS = 0.3, 20

STOP_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        ENGLISH_STOP_WORDS
        | {
            "can",
            "also",
            "use",
            "using",
            "used",
            "just",
            "like",
            "make",
            "need",
            "want",
            "get",
            "set",
            "see",
            "way",
            "ll",
            "ve",
            "re",
            "don",
            "doesn",
            "isn",
            "example",
            "e-g",
            "eg",
            "ie",
            "etc",
            "click",
            "new",
            "one",
        }
    ),
    "de": frozenset(
        """aber alle allem allen aller alles als also am an ander andere anderen auch auf aus bei bin
        bis bist da damit dann das dass dein deine dem den der des dessen dich die dies diese diesem diesen dieser
        dieses dir doch dort du durch ein eine einem einen einer eines er es etwas euch euer für gegen hat habe
        haben hatte hier hin hinter ich ihm ihn ihnen ihr ihre im in indem ins ist jede jedem jeden jeder jedes
        jetzt kann kein keine können könnte man manche mein mit muss musst nach nicht nichts noch nun nur ob oder
        ohne sehr sein seine sich sie sind so solche soll sollte sondern sonst über um und uns unser unter viel
        vom von vor wann war waren warum was weil weiter welche wenn wer werde werden wie wieder will wir wird
        wo wurde würde zu zum zur zwischen""".split()
    ),
    "fr": frozenset(
        """au aux avec ce ces cette dans de des du elle en est et eux il ils je la le les leur lui
        ma mais me même mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sont sur ta
        te tes toi ton tu un une vos votre vous été être avoir fait peut plus sans comme tout tous aussi""".split()
    ),
    "es": frozenset(
        """al algo como con contra cual cuando de del desde donde durante el ella ellas ellos en entre
        era es esa ese eso esta este esto estos fue ha hay la las le les lo los más me mi mis mucho muy nada ni
        no nos o otra otro para pero poco por que qué se sea ser si sin sobre son su sus también te tiene todo
        tu un una uno unos usted ya puede""".split()
    ),
    "ru": frozenset(
        """а без более бы был была были было быть в вам вас весь во вот все всего всех вы где да даже
        для до его ее если есть еще же за здесь и из или им их к как ко когда кто ли либо между меня мне может
        мы на над надо наш не него нее нет ни них но ну о об однако он она они оно от очень по под после при
        про с со так также такой там те тем то того тоже только том ты у уже чем что чтобы эта эти это этот
        я можно нужно""".split()
    ),
}
ALL_STOP_WORDS = frozenset().union(*STOP_WORDS.values())
CONNECTORS = frozenset(
    """of and for in on to with by und der des für von mit im zur zum de du des et à la le y
    del para en и в на для с по из от""".split()
)  # may sit inside a 3-word phrase
SIGNATURES = {
    lang: frozenset(words)
    for lang, words in {
        "en": "the and of to is in that it for you with are this be on or your can".split(),
        "de": "der die und das ist nicht sie mit den ein eine zu von für auf sich auch wird".split(),
        "fr": "le la les et des est une pour que dans qui pas sur vous avec du".split(),
        "es": "el la los las y es que en una para con por del se su no".split(),
    }.items()
}


def strip_code(text: str) -> str:
    """``text`` with fenced code blocks, inline code, URLs, HTML tags, ``{{ template }}`` expressions,
    ``{#anchor}`` marks and admonition openers (``??? question``, ``:::tip``) — none of them prose —
    replaced by line ends."""
    if "```" in text or "~~~" in text:
        text = FENCED.sub("\n", text)
    if "`" in text:
        text = INLINE_CODE.sub("\n", text)
    if "://" in text or "www." in text:
        text = URL.sub("\n", text)
    if "<" in text or "{" in text:
        text = HTML_TAG.sub("\n", text)
    if "???" in text or "!!!" in text or ":::" in text:
        text = ADMONITION.sub("\n", text)
    return text


def words(segment: str) -> list[str]:
    """The lower-cased words of one segment; a Han / kana run becomes its character bigrams."""
    out: list[str] = []
    for w in WORD.findall(segment.lower()):
        if CJK_RUN.fullmatch(w):
            out += [w] if len(w) == 1 else [w[i : i + 2] for i in range(len(w) - 1)]
        elif len(w) > 1:
            out.append(w)
    return out


def tokens(text: str) -> tuple[list[str], bool]:
    """(the lower-cased tokens of ``text`` — words, and runs of break characters or digits, which
    start with no letter — , whether it holds Han / kana): one regex pass."""
    low = strip_code(text).lower()
    return TOKEN.findall(low), CJK_RUN.search(low) is not None


def segments(text: str) -> list[list[str]]:
    """The word lists of ``text``'s segments (see the module doc); CJK bigrams one per segment."""
    toks, cjk = tokens(text)
    out: list[list[str]] = []
    run: list[str] = []
    for tok in toks:
        if not tok[0].isalpha():
            if run:
                out.append(run)
                run = []
        elif cjk and CJK_RUN.match(tok):
            if run:
                out.append(run)
                run = []
            out += [[tok]] if len(tok) == 1 else [[tok[i : i + 2]] for i in range(len(tok) - 1)]
        else:
            run.append(tok)
    if run:
        out.append(run)
    return out


def headings(text: str) -> list[tuple[int, str]]:
    """The Markdown headings of ``text`` as (level, text), markup stripped."""
    return [
        (len(m.group(1)), re.sub(r"[*_`\[\]]+", "", HTML_TAG.sub("", m.group(2))).strip())
        for m in HEADING.finditer(text)
    ]


def language(text: str) -> str:
    """A cheap guess of ``text``'s language (see the module doc)."""
    letters = [c for c in text[:4000] if c.isalpha()]
    if not letters:
        return "und"
    cjk = sum(1 for c in letters if CJK_RUN.match(c))
    if cjk > 0.3 * len(letters):
        return "ja" if re.search("[\u3040-\u30ff]", text) else "zh"
    if sum(1 for c in letters if "\uac00" <= c <= "\ud7af") > 0.3 * len(letters):
        return "ko"
    if sum(1 for c in letters if "\u0400" <= c <= "\u04ff") > 0.5 * len(letters):
        return "ru"
    if sum(1 for c in letters if c.isascii() or "\u00c0" <= c <= "\u024f") < 0.5 * len(letters):
        return "und"
    tokens = re.findall(r"[^\W\d_]+", text[:4000].lower())
    hits = {lang: sum(1 for t in tokens if t in sig) for lang, sig in SIGNATURES.items()}
    best = max(hits, key=lambda lang: hits[lang])
    if hits[best] == 0 and all(c.isascii() for c in letters):
        return "en"  # a short ASCII-only text (a heading, a label) with no function word to tell by
    return best if hits[best] >= max(1, 0.05 * len(tokens)) else "und"
