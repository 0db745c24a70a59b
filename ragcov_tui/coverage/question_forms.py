"""English question shapes for a heading or a sentence of documentation, by its form.

Each function returns ``(question, rank)`` or None; a lower rank is a better question (more
specific, more like what a user types). Headings:

* already a question ("How do refunds work", "Who can manage billing") → itself with a ``?`` (rank 0);
* "How to rotate a token" → "How do I rotate a token?"; a gerund that takes an object ("Configuring
  the proxy", "Setting up SAML", "Adding and removing members") → "How do I configure the proxy?";
  an imperative that takes one ("Invite your teammates", "Test locally") → "How do I invite my
  teammates?" (rank 1). A verb-like first word followed by a bare noun ("Search operators",
  "Billing cycles") is read as a noun phrase instead;
* a short noun phrase ("Quick search", "Rate limits", "Billing cycles") → "What is quick search?" /
  "What are rate limits?" (rank 4); a lone gerund ("Importing") → "How does importing work?"
  (rank 4); generic headings (Overview, FAQ…) and document titles (level 1) give nothing here.

Sentences (after list markers and Markdown markup are removed):

* a question the documentation itself asks ("Where can I see if Skein is down?") → itself (rank 0);
* "To export your data, open …" → "How do I export my data?"; an imperative step with a purpose
  ("Run skein sync --force to rebuild the index.") → "How do I rebuild the index?"; an imperative
  step that takes an object ("Revoke the token in Settings") → "How do I revoke the token in
  Settings?" unless it is a bare UI action (click, select, go…) (rank 2);
* a definition ("The audit log is a record of …", "Guests are people who …") → "What is the audit
  log?" / "What are Guests?" (rank 2);
* "You can X" → "Can I X?", "You must / need to X" → "Do I need to X?", "You should X" → "Should I
  X?", "Admins can X" → "Can admins X?", "If you X, …" → "What happens if I X?" (rank 3).

A shaped question has at most :data:`MAX_WORDS` words after its opening, no menu path (→), no
vague object (it, one, them…). Second-person words are turned to the asker's (you → I, or me after
a preposition or verb that takes a person; your → my; "I are" → "I am"). "To X, …" gives "How do I
X?" only when what follows is addressed to the reader, not a report of what its authors did ("To
aid diagnosis, we developed …": :data:`NARRATIVE`).

:func:`well_formed` is the last check on any shaped question (the offline suggester offers no
other): see its doc.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ragcov_tui.coverage.lexicon import HTML_TAG

GENERIC_HEADINGS = frozenset(
    {
        "overview",
        "introduction",
        "summary",
        "notes",
        "note",
        "faq",
        "faqs",
        "examples",
        "example",
        "see also",
        "contents",
        "table of contents",
        "details",
        "more",
        "other",
        "misc",
        "miscellaneous",
        "background",
        "appendix",
        "references",
        "next steps",
        "prerequisites",
        "requirements",
        "changelog",
        "glossary",
        "tips",
        "common questions",
        "frequently asked questions",
        "questions",
        "getting help",
        "help",
        "support",
    }
)
QUESTION_WORDS = frozenset("how what why when where which who whose".split())
AUXILIARIES = frozenset("can could do does did is are was were should would will may must has have".split())
IMPERATIVES = frozenset(
    """accept activate add adjust allow apply approve archive assign attach authenticate
    authorize back block bring build cancel change check clean clear clone close configure confirm connect convert
    copy create customize deactivate debug define delete deploy disable disconnect download duplicate edit embed
    enable encrypt enforce export extend fetch filter find fix format generate get give grant handle hide import
    increase insert install integrate invite join keep limit link list lock log make manage map mention merge migrate
    monitor move name notify pause pin print protect publish pull purge push put query rebuild reconnect record
    recover reduce refresh regenerate register reinstall remove rename reorder replace replay reply request reset resolve
    restart restore resume retry revert review revoke rotate run save schedule search send set share sign sort
    specify start stop store subscribe switch sync tag take test track transfer troubleshoot turn undo uninstall
    unlock unpublish unsubscribe update upgrade upload use verify view watch write""".split()
)
UI_ACTIONS = frozenset(
    "click press select choose tap go open enter type scroll wait see note check pick hover "
    "navigate find view visit read follow".split()
)
OBJECT_STARTS = frozenset(
    """the a an your my our their this that these those all every each any some both it
    up out in on off down over back into onto from to with without for by through across away around together
    again locally manually automatically only""".split()
)
DETERMINERS = frozenset("the a an my your our their its this that".split())
DANGLING = frozenset("the a an my your our their its of to for with by from and or as than".split())
VAGUE_OBJECTS = frozenset("it one them this that these those there here something".split())
GERUND_BASES = {
    "setting": "set",
    "getting": "get",
    "running": "run",
    "putting": "put",
    "stopping": "stop",
    "logging": "log",
    "adding": "add",
    "mapping": "map",
    "planning": "plan",
    "dropping": "drop",
    "using": "use",
    "writing": "write",
    "making": "make",
    "taking": "take",
    "moving": "move",
    "saving": "save",
    "sharing": "share",
    "changing": "change",
    "inviting": "invite",
    "typing": "type",
    "storing": "store",
    "restoring": "restore",
    "deleting": "delete",
    "completing": "complete",
    "revoking": "revoke",
    "choosing": "choose",
    "closing": "close",
    "pasting": "paste",
    "signing": "sign",
    "editing": "edit",
    "limiting": "limit",
    "auditing": "audit",
    "visiting": "visit",
    "submitting": "submit",
    "committing": "commit",
    "permitting": "permit",
    "pinning": "pin",
    "scanning": "scan",
    "tagging": "tag",
    "shipping": "ship",
    "skipping": "skip",
    "wrapping": "wrap",
    "debugging": "debug",
    "embedding": "embed",
    "upgrading": "upgrade",
    "downgrading": "downgrade",
    "uploading": "upload",
    "downloading": "download",
    "loading": "load",
    "reading": "read",
    "bringing": "bring",
    "giving": "give",
    "having": "have",
    "being": "be",
    "leaving": "leave",
}
E_ENDINGS = (
    "at",
    "iz",
    "yz",
    "ur",
    "ag",
    "iv",
    "ov",
    "uc",
    "bl",
    "pl",
    "gl",
    "dl",
    "tl",
    "kl",
    "rg",
    "dg",
    "ir",
    "id",
    "ud",
    "lv",
    "rv",
    "ul",
    "rs",
    "ns",
    "ut",
)
NOT_SUBJECTS = frozenset(
    """it this that these those there here which what who how why when where each every some
    any all one they we he she you i its our their your such another everything something nothing anything
    everyone someone anyone nobody if once while before after""".split()
)
PRONOUNS = {
    "your": "my",
    "yours": "mine",
    "yourself": "myself",
    "yourselves": "ourselves",
    "you're": "I'm",
    "you've": "I've",
    "you'll": "I'll",
    "you'd": "I'd",
}
TAKES_PERSON = frozenset(
    """to for with from let lets help helps show shows send sends give gives tell tells ask
    asks remind reminds at by of about notify notifies invite invites email emails than""".split()
)
PERSONAL = frozenset("i you we me my your our us".split())
PREPOSITIONS = frozenset("for of in on with to by from at about per via".split())
AFTER_I = {"are": "am", "were": "was", "aren't": "am not", "weren't": "wasn't"}
LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|step\s+\d+[.:)]?)\s+", re.IGNORECASE)
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
MARKUP = re.compile(r"^\s*>+|[*_`#|\"“”]+")
CLAUSE_END = re.compile(r"\s*(?:,(?!\d)|[;:(—–]|\s-\s|\band then\b|\bthen\b|\bso that\b|\bwhich\b)")
DEFINITION = re.compile(
    r"^(?:(the|an?)\s+)?([\w][\w\-']*(?:\s+[\w][\w\-']*){0,3}?)\s+(is|are)\s+"
    r"(?:(?:a|an|the|one|how|where|what|when|used)\b|called\b)",
    re.IGNORECASE,
)
MODAL = re.compile(
    r"^(?:(the|an?|all|only)\s+)?([\w][\w\-']*(?:\s+(?:and\s+)?[\w][\w\-']*){0,3}?)\s+"
    r"(can|cannot|can't)\s+(?:also\s+|only\s+)?(.+)$",
    re.IGNORECASE,
)
YOU_FORMS = [
    (re.compile(r"^you\s+(?:can|cannot|can't|may)\s+(?:also\s+|only\s+)?(.+)$", re.I), "Can I {}?"),
    (re.compile(r"^you\s+(?:must|need to|have to)\s+(?:also\s+|first\s+)?(.+)$", re.I), "Do I need to {}?"),
    (re.compile(r"^you\s+should\s+(?:also\s+)?(.+)$", re.I), "Should I {}?"),
    (re.compile(r"^if\s+you\s+(.+?),\s+.+$", re.I), "What happens if I {}?"),
]  # {}: after "you", as the asker's
MAX_WORDS = 12
SUBORDINATORS = frozenset("whether although though because since while whereas unless if once as".split())
SECTION_LABELS = frozenset(
    """ABSTRACT AIM AIMS BACKGROUND CONCLUSION CONCLUSIONS CONTEXT DESIGN FINDINGS IMPORTANCE
    INTERPRETATION INTRODUCTION METHOD METHODS MOTIVATION OBJECTIVE OBJECTIVES PARTICIPANTS PURPOSE RESULTS SETTING
    SUMMARY""".split()
)  # a structured abstract's headings, run into its first sentence
VAGUE_SUBJECTS = frozenset(
    """aim aims analysis approach article data design end finding findings method methods paper
    purpose question questions result results review study work""".split()
)
TITLE_WORDS = frozenset(
    "A An And As At Be By For From In Into Is Of On Or The To With".split()
)  # Title Case In A Question
NARRATIVE = re.compile(
    r"\b(?:we|our|us)\b|\b(?:this|the present|the current) (?:study|paper|work|article|review|trial)\b"
    r"|\b(?:was|were) \w+ed\b",
    re.IGNORECASE,
)  # authors reporting, not a reader's step


def plain(sentence: str) -> str:
    """``sentence`` without list markers, link targets, Markdown markup and quotes; single-spaced,
    no final full stop."""
    s = LINK.sub(r"\1", LIST_MARK.sub("", HTML_TAG.sub(" ", sentence.strip())))
    return re.sub(r"\s+", " ", MARKUP.sub("", s)).strip().rstrip(".!:; ")


def asker(words: str) -> str:
    """Second-person words turned to the asker's (see the module doc)."""
    out: list[str] = []
    for w in words.split():
        low = w.lower()
        if low == "you":
            out.append(
                "me" if out and out[-1].lower() in TAKES_PERSON or out and out[-1].lower() in IMPERATIVES else "I"
            )
        elif out and out[-1] == "I" and low in AFTER_I:
            out.append(AFTER_I[low])
        else:
            out.append(PRONOUNS.get(low, w))
    return " ".join(out)


def lower_first(text: str, source: str = "") -> str:
    """``text`` with its first letter lower-cased, unless its first word looks like a name: capitals
    beyond the first letter (SAML, iOS), or — when ``source`` is given — written capitalised there
    after a lower-case word (mid-sentence: "ask Owners", "connect Slack")."""
    first = text.split(" ", 1)[0]
    if (
        any(c.isupper() for c in first[1:])
        or source
        and first[:1].isupper()
        and re.search(rf"\b[a-z]+[,]? {re.escape(first)}(?!\w)", source)
    ):
        return text
    return text[:1].lower() + text[1:]


def clause(text: str) -> str | None:
    """The first clause of ``text`` (cut at a comma, dash, 'then'…), or None when it is longer than
    MAX_WORDS, names a menu path, starts with a vague object, or reads like a label ("Search The …")."""
    head = CLAUSE_END.split(text, maxsplit=1)[0].strip().rstrip(".?!")
    words = head.split()
    if not words or len(words) > MAX_WORDS or any(c in head for c in "→›>?") or head.count("(") != head.count(")"):
        return None
    if (
        words[-1].lower() in DANGLING
        or len(words) > 1
        and words[-2].lower() in DETERMINERS
        and (words[-1].lower() in PREPOSITIONS | OBJECT_STARTS)
    ):
        return None
    if len(words) > 1 and (words[1].lower() in VAGUE_OBJECTS or any(w in ("The", "A", "An") for w in words[1:])):
        return None
    return head


def takes_object(words: list[str]) -> bool:
    """The word after a verb-like first word shows it is a verb: a determiner, particle or
    preposition, an -ly adverb, a number, an acronym, or a second gerund / verb after 'and'."""
    if len(words) < 2:
        return False
    nxt = words[1]
    if nxt.lower() in ("and", "or"):
        return len(words) > 2 and (words[2].lower().endswith("ing") or words[2].lower() in IMPERATIVES)
    return (
        nxt.lower() in OBJECT_STARTS
        or nxt.lower().endswith("ly")
        or nxt[:1].isdigit()
        or nxt.isupper()
        and len(nxt) <= 6
    )


def finite_verb(text: str) -> bool:
    """True when ``text`` holds a finite verb after its first word ("List endpoints are paged", "Move
    to sends the page"): then it is a statement, not an imperative step."""
    words = text.lower().split()[1:]
    return bool(set(words) & {"is", "are", "was", "were", "has", "have", "does", "do"}) or any(
        a == "to" and b.endswith("s") and b[:-1] in IMPERATIVES for a, b in pairwise(words)
    )


def base_form(gerund: str, known: frozenset[str] = frozenset()) -> str | None:
    """The base verb of an ``-ing`` word ("configuring" → "configure"), or None if it is not one.
    ``known`` (the corpus's words) decides between "stem" and "stem + e" when it holds one of them."""
    g = gerund.lower()
    if g in GERUND_BASES:
        return GERUND_BASES[g]
    if not g.endswith("ing") or len(g) < 6:
        return None
    stem = g[:-3]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    if stem + "e" in known and stem not in known:
        return stem + "e"
    if stem in known:
        return stem
    return stem + "e" if stem.endswith(E_ENDINGS) else stem


def verb_phrase(words: list[str], known: frozenset[str]) -> str:
    """Gerunds of ``words`` joined by 'and' turned to base verbs ("adding and removing members" → "add
    and remove members")."""
    out = list(words)
    for i, w in enumerate(words):
        if i == 0 or i >= 2 and words[i - 1].lower() in ("and", "or"):
            out[i] = base_form(w, known) or w
    return " ".join(out)


def heading_question(
    heading: str, known: frozenset[str] = frozenset(), *, level: int = 2, source: str = ""
) -> tuple[str, int] | None:
    """A question from a section heading of Markdown ``level`` (see the module doc); ``source`` is
    the text around it (to tell a name from a common word)."""
    h = re.sub(r"\s*\([^)]*\)", "", re.sub(r"^\d+(?:\.\d+)*[.):]?\s+", "", plain(heading))).strip(" :.")
    words = h.rstrip("?").split()
    if (
        not words
        or h.lower().rstrip("?") in GENERIC_HEADINGS
        or len(words) > 12
        or not h[:1].isalpha()
        or any(c in h for c in "→›>|")
    ):
        return None
    if len(words) > 1 and words[1].lower() in VAGUE_OBJECTS:
        return None
    first, second = words[0].lower(), words[1].lower() if len(words) > 1 else ""
    if (
        h.endswith("?")
        or first in AUXILIARIES - {"has", "have", "was", "were"}
        or first in QUESTION_WORDS
        and (second in AUXILIARIES or first in ("what", "who") and second.endswith("s") and second != "is")
    ):
        return h.rstrip("?")[:1].upper() + h.rstrip("?")[1:] + "?", 0
    if first == "how" and second == "to" and len(words) > 2:
        return f"How do I {asker(lower_first(' '.join(words[2:]), source))}?", 1
    base = base_form(first, known) if first.endswith("ing") else None
    if (
        base
        and len(words) > 1
        and (takes_object(words) or base in IMPERATIVES and words[1].lower() not in ("and", "or"))
    ):
        return f"How do I {asker(verb_phrase(words, known))}?", 1
    if first in IMPERATIVES and first not in UI_ACTIONS and takes_object(words):
        return f"How do I {asker(lower_first(h, source))}?", 1
    lows = [w.lower() for w in words]
    if level == 1 or len(words) > 4 or first in IMPERATIVES or "," in h or ":" in h or set(lows) & PERSONAL:
        return None
    if base and (len(words) == 1 or base in IMPERATIVES or not lows[-1].endswith("s")):
        return (f"How does {first} work?", 4) if len(words) == 1 else None  # "Billing cycles" goes on: a noun
    if first in NOT_SUBJECTS:
        return None
    heads = [next((lows[i - 1] for i in range(1, len(lows)) if lows[i] in PREPOSITIONS), lows[-1])]
    if "and" in lows:
        heads = [lows[lows.index("and") - 1], lows[-1]]
    plurals = [w.endswith("s") and not w.endswith(("ss", "us", "is", "ics")) or w == "people" for w in heads]
    if len(set(plurals)) > 1:  # "Order and duplicates": no number agrees with both
        return None
    plural = plurals[0]
    noun = lower_first(h, source)
    if plural:
        return f"What are {'the ' if noun[:1].islower() else ''}{noun}?", 4
    return f"What is {noun}?", 4


def sentence_question(sentence: str, known: frozenset[str] = frozenset(), source: str = "") -> tuple[str, int] | None:
    """A question from one English sentence by its shape (see the module doc)."""
    s = plain(sentence)
    words = s.split()
    if len(words) < 3 or len(words) > 40:
        return None
    first = words[0].lower()
    if s.endswith("?"):
        ok = first in QUESTION_WORDS | AUXILIARIES and len(words) <= 20 and s.count("?") == 1
        return (s, 0) if ok else None
    if first == "to" and "," in s:
        purpose = clause(s[3:])
        addressed = not NARRATIVE.search(s.split(",", 1)[1])
        return (f"How do I {asker(purpose)}?", 2) if purpose and len(purpose.split()) >= 2 and addressed else None
    if first in IMPERATIVES:
        m = re.search(r"\s(?:to|in order to)\s+(\w+)\s+(.+)$", s)
        verb = m.group(1).lower() if m else ""
        if m and (verb in IMPERATIVES or verb in known and not verb.endswith(("s", "ed", "ing"))):
            purpose = clause(f"{m.group(1)} {m.group(2)}")
            if purpose:
                return f"How do I {asker(lower_first(purpose))}?", 2
        step = clause(s)
        ws = (step or "").split()
        bare_object = len(ws) > 3 and ws[2].lower() in PREPOSITIONS  # "Add tags to a page"
        if first not in UI_ACTIONS and step and (takes_object(ws) or bare_object) and not finite_verb(step):
            return f"How do I {asker(lower_first(step))}?", 2
        return None
    for pattern, template in YOU_FORMS:
        m = pattern.match(s)
        if m and (rest := clause(m.group(1))) and len(rest.split()) >= 2:
            return template.format(asker(f"you {rest}").split(" ", 1)[1]), 3
    m = DEFINITION.match(s)
    if m and not set(m.group(2).lower().split()) & NOT_SUBJECTS:
        subject = m.group(2)
        if m.group(1) and m.group(1).lower() == "the":
            subject = f"the {subject}"
        elif " " in subject:
            subject = lower_first(subject, source)
        return f"What {m.group(3).lower()} {subject}?", 2
    m = None if re.search(r"[\"“”]", sentence) else MODAL.match(s)  # quotes: a UI string ("Can't load")
    if (
        m
        and not set(m.group(2).lower().split()) & (NOT_SUBJECTS | QUESTION_WORDS)
        and (rest := clause(m.group(4)))
        and not re.search(r"\bcan\b", rest)
    ):
        article = f"{m.group(1).lower()} " if m.group(1) and m.group(1).lower() in ("the", "a", "an") else ""
        return f"Can {article}{lower_first(m.group(2), source)} {asker(rest)}?", 3
    return None


def well_formed(question: str) -> bool:
    """Whether a shaped question reads as one a person would type: one final ``?`` after a capital
    letter, three or more words, no "…", brackets and quotes paired, no word twice in a row, no
    structured-abstract label (BACKGROUND, PURPOSE…), no Title Case ("Can Subclasses Be Defined by
    …"), no dangling last word ("… and?"), no second finite verb after "Can X …" ("… but involves …"),
    no subordinator or second question word as the subject ("Can whether …", "Who is where …"),
    "How do I" followed by a verb (not "How do I this end?") and no authors' voice (we, our, this
    study), and "What is" not asking about one vague noun ("What is the design?"; "What are the payment
    methods?" is fine)."""
    words = question.rstrip("?").split()
    lows = [w.lower().strip(",;:") for w in words]
    if (
        not question.endswith("?")
        or question.count("?") != 1
        or not question[:1].isupper()
        or len(words) < 3
        or "…" in question
        or question.count("(") != question.count(")")
        or question.count('"') % 2
        or any(a == b for a, b in pairwise(lows))
        or any(w.strip(",;:") in SECTION_LABELS for w in words)
        or any(w in TITLE_WORDS for w in words[2:])
        or lows[-1] in DANGLING
    ):
        return False
    if lows[0] in AUXILIARIES and any(
        a in ("but", "yet", "whereas") and b.endswith("s") and not b.endswith("ss") for a, b in pairwise(lows)
    ):
        return False  # "Can X be accurate but involves …": a second finite verb
    subject = (
        lows[1] if lows[0] in AUXILIARIES else lows[2] if lows[0] in QUESTION_WORDS and lows[1] in AUXILIARIES else ""
    )
    if subject in SUBORDINATORS | QUESTION_WORDS:
        return False
    if lows[:3] == ["how", "do", "i"] and (
        len(lows) < 4 or lows[3] in DETERMINERS | VAGUE_OBJECTS | SUBORDINATORS or NARRATIVE.search(question)
    ):
        return False
    named = [w for w in lows[2:] if w not in DETERMINERS]
    return not (
        lows[0] == "what"
        and lows[1] in ("is", "are")
        and named
        and (named == named[:1] and named[0] in VAGUE_SUBJECTS or named[0] in ("present", "current", "also", "most"))
    )
