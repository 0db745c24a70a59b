"""English question shapes from headings and sentences (coverage.question_forms): wide batteries."""

from __future__ import annotations

import pytest

from ragcov_tui.coverage.question_forms import (
    asker,
    base_form,
    clause,
    heading_question,
    plain,
    sentence_question,
    well_formed,
)
from ragcov_tui.coverage.suggest_offline import chunk_candidates
from tests.support.present import present

HEADINGS = [
    # already a question
    ("How do refunds work", "How do refunds work?"),
    ("Who can manage billing?", "Who can manage billing?"),
    ("What gets indexed", "What gets indexed?"),
    ("Can I pay monthly?", "Can I pay monthly?"),
    ("Why is my export slow", "Why is my export slow?"),
    # how to
    ("How to rotate a token", "How do I rotate a token?"),
    ("How to set up your IdP", "How do I set up my IdP?"),
    # gerunds that take an object
    ("Configuring the proxy", "How do I configure the proxy?"),
    ("Setting up SAML", "How do I set up SAML?"),
    ("Creating an endpoint", "How do I create an endpoint?"),
    ("Adding and removing members", "How do I add and remove members?"),
    ("Upgrading and downgrading", "How do I upgrade and downgrade?"),
    ("Running the importer locally", "How do I run the importer locally?"),
    ("Getting started with Skein", "How do I get started with Skein?"),
    ("Keeping tokens safe", "How do I keep tokens safe?"),
    ("Verifying signatures", "How do I verify signatures?"),
    ("Inserting blocks", "How do I insert blocks?"),
    ("Troubleshooting integrations", "How do I troubleshoot integrations?"),
    ("Transferring ownership", "How do I transfer ownership?"),
    ("Using the API from Python", "How do I use the API from Python?"),
    ("Replaying delivery batch 3", "How do I replay delivery batch 3?"),
    ("Deleting your account", "How do I delete my account?"),
    ("Enabling 2FA for everyone", "How do I enable 2FA for everyone?"),
    # imperatives that take an object
    ("Invite your teammates", "How do I invite my teammates?"),
    ("2. Invite your teammates", "How do I invite my teammates?"),
    ("Create an API token", "How do I create an API token?"),
    ("Test locally", "How do I test locally?"),
    ("Enforce SAML single sign-on", "How do I enforce SAML single sign-on?"),
    ("Handle 429 responses well", "How do I handle 429 responses well?"),
    ("Bring in existing documents", "How do I bring in existing documents?"),
    ("Rotate without downtime", "How do I rotate without downtime?"),
    ("Step 3: Connect the repository", "How do I connect the repository?"),
    # noun phrases
    ("Quick search", "What is quick search?"),
    ("Rate limits", "What are the rate limits?"),
    ("Billing cycles", "What are the billing cycles?"),
    ("Purchase orders", "What are the purchase orders?"),
    ("Ingredients for one loaf", "What are the ingredients for one loaf?"),
    ("Pagination", "What is pagination?"),
    ("Retention policies (Enterprise)", "What are the retention policies?"),
    ("Mentions and links", "What are the mentions and links?"),
    ("Real-time collaboration", "What is real-time collaboration?"),
    ("SCIM provisioning", "What is SCIM provisioning?"),
    ("OAuth 2.0 apps", "What are OAuth 2.0 apps?"),
    ("Importing", "How does importing work?"),
    ("**Payload**", "What is payload?"),
    ("`Quick search`", "What is quick search?"),
]
NO_QUESTION = [
    "Overview",
    "FAQ",
    "Examples",
    "See also",
    "Next steps",
    "Table of contents",
    "",
    "   ",
    "###",
    "When a person leaves",
    "Where your data lives",
    "What each plan includes",
    "Variations I like",
    "AI and your data",
    "User guide: search and navigation",
    "Search operators",
    "Order and duplicates",
    "Format and Markdown",
    "Before you start",
    "Starting one from scratch",
    "Push notifications",
    "A heading that goes on for far too many words to be a topic anyone would ask about today",
    "Data import, export and retention",
    "12345",
    "→ Settings",
]


def test_heading_ranks_and_document_titles() -> None:
    assert present(heading_question("How do refunds work"))[1] == 0
    assert present(heading_question("Configuring the proxy"))[1] == 1
    assert present(heading_question("Rate limits"))[1] == 4
    assert heading_question("Rate limits", level=1) is None  # a document title: too broad to ask
    assert heading_question("Setting up SAML", level=1) == ("How do I set up SAML?", 1)


def test_heading_keeps_a_name_capitalised_when_the_text_does() -> None:
    text = "You can connect Slack to any channel. Slack posts a preview."
    assert heading_question("Slack", source=text) == ("What is Slack?", 4)
    assert heading_question("Microsoft Teams", source="Install it to connect Microsoft Teams.") == (
        "What are Microsoft Teams?",
        4,
    )
    assert heading_question("Payment methods", source="Add payment methods in Billing.") == (
        "What are the payment methods?",
        4,
    )


SENTENCES = [
    # documentation's own questions
    ("Where can I see if Skein is down?", "Where can I see if Skein is down?"),
    ("**Can we pay by invoice instead of card?**", "Can we pay by invoice instead of card?"),
    # to-purpose
    ("To export your data, open Admin console → Data.", "How do I export my data?"),
    ("To rotate a token without downtime, create the new one first.", "How do I rotate a token without downtime?"),
    # imperative step with a purpose
    ("Run `skein sync --force` to rebuild the search index.", "How do I rebuild the search index?"),
    ("1. Use the CLI to import pages from Confluence.", "How do I import pages from Confluence?"),
    ("- Add a TXT record to verify your domain.", "How do I verify my domain?"),
    # imperative step that takes an object
    ("Revoke the token in Settings.", "How do I revoke the token in Settings?"),
    ("Invite your teammates from the sidebar.", "How do I invite my teammates from the sidebar?"),
    ("Handle 429 responses with exponential backoff.", "How do I handle 429 responses with exponential backoff?"),
    ("Add tags to a page from the sidebar.", "How do I add tags to a page from the sidebar?"),
    # definitions
    ("The audit log is a record of every security-relevant event.", "What is the audit log?"),
    ("Guests are the people outside the organization who see only shared pages.", "What are Guests?"),
    ("A service account is a non-human member that owns tokens.", "What is service account?"),
    ("Personal access tokens are the simplest way to call the API.", "What are personal access tokens?"),
    ("Skein is a wiki for teams.", "What is Skein?"),
    # you can / must / should / if you
    ("You can pay monthly or annually.", "Can I pay monthly or annually?"),
    ("You can also export a single space as Markdown.", "Can I export a single space as Markdown?"),
    ("You cannot undo a deletion after 30 days.", "Can I undo a deletion after 30 days?"),
    ("You must verify your domain before you turn on SSO.", "Do I need to verify my domain before I turn on SSO?"),
    ("You need to be an Owner of the organization.", "Do I need to be an Owner of the organization?"),
    ("You should rotate tokens every 90 days.", "Should I rotate tokens every 90 days?"),
    ("If you are new to this, read the basics first.", "What happens if I am new to this?"),
    ("If you lose your phone, use a recovery code.", "What happens if I lose my phone?"),
    # subject can
    ("Owners can change the plan at any time.", "Can owners change the plan at any time?"),
    ("A single page can hold up to 20,000 blocks.", "Can a single page hold up to 20,000 blocks?"),
    (
        "Admins can see the seat count but not the payment details.",
        "Can admins see the seat count but not the payment details?",
    ),
]
NO_SENTENCE_QUESTION = [
    "Click Verify.",
    "Go to Domains → Add domain and enter yourcompany.com.",
    "Open it.",
    "Select the space.",
    "Each batch can be replayed from the console.",
    "It is fast.",
    "This is how it works.",
    "There are three plans.",
    "List endpoints are cursor-based.",
    "Push notifications cover mentions.",
    "Refresh tokens last 60 days.",
    "Use operators such as in:",
    "Add it at your DNS provider.",
    "Create one in Settings → Developer → New token.",
    'Jira embeds showed "Can\'t load issue" for some projects.',
    "Which plans exist and what do they cost? Read on.",
    "Short one.",
    "a b",
    "Everything in Skein is a page.",
    "What each plan includes.",
    "Offline storage can be cleared under Settings > Storage.",
    "Move to sends the page to another space.",
    " ".join(["word"] * 50) + ".",
]


SHAPES = [("heading", text, q) for text, q in HEADINGS] + [("sentence", text, q) for text, q in SENTENCES]
SHAPE_NONE = [("heading", text, None) for text in NO_QUESTION] + [
    ("sentence", text, None) for text in NO_SENTENCE_QUESTION
]


@pytest.mark.parametrize(("kind", "text", "expected"), [*SHAPES, *SHAPE_NONE])
def test_question_shapes(kind: str, text: str, expected: str | None) -> None:
    found = (heading_question if kind == "heading" else sentence_question)(text)
    assert (found and found[0]) == (expected or None)


@pytest.mark.parametrize(
    ("gerund", "known", "base"),
    [
        ("configuring", frozenset(), "configure"),
        ("creating", frozenset(), "create"),
        ("setting", frozenset(), "set"),
        ("running", frozenset(), "run"),
        ("installing", frozenset(), "install"),
        ("passing", frozenset(), "pass"),
        ("enabling", frozenset(), "enable"),
        ("scheduling", frozenset(), "schedule"),
        ("removing", frozenset(), "remove"),
        ("connecting", frozenset(), "connect"),
        ("exporting", frozenset(), "export"),
        ("adding", frozenset(), "add"),
        ("rotating", frozenset(), "rotate"),
        ("replaying", frozenset(), "replay"),
        ("resolving", frozenset(), "resolve"),
        ("monitoring", frozenset({"monitor"}), "monitor"),
        ("caching", frozenset({"cache"}), "cache"),
        ("ring", frozenset(), None),
        ("thing", frozenset(), None),
        ("billing", frozenset(), "bill"),
    ],
)
def test_base_form(gerund: str, known: frozenset[str], base: str | None) -> None:
    assert base_form(gerund, known) == base


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("verify your domain", "verify my domain"),
        ("you are new", "I am new"),
        ("lets you invite people", "lets me invite people"),
        ("send you an email", "send me an email"),
        ("your own tokens", "my own tokens"),
        ("you're done", "I'm done"),
        ("help yourself", "help myself"),
        ("you were late", "I was late"),
    ],
)
def test_asker_turns_second_person_to_the_askers(words: str, expected: str) -> None:
    assert asker(words) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rebuild the index, then wait", "rebuild the index"),
        ("pay 1,000 dollars a year", "pay 1,000 dollars a year"),
        ("open Settings → Members", None),
        ("use it", None),
        ("use the in", None),
        ("connect to", None),
        (" ".join(["word"] * 13), None),
        ("export a space (as Markdown", "export a space"),
        ("search The same search", None),
    ],
)
def test_clause(text: str, expected: str | None) -> None:
    assert clause(text) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("- **Bold** step.", "Bold step"),
        ("1. [Link](http://x) here.", "Link here"),
        ("> quoted text!", "quoted text"),
        ("`code`  and   spaces", "code and spaces"),
        ("Step 2: do it.", "do it"),
    ],
)
def test_plain(raw: str, expected: str) -> None:
    assert plain(raw) == expected


MALFORMED = [  # what the offline suggester made of SciFact's abstracts (issue #22 §3)
    "How do I this end?",
    "How do I test our hypothesis?",
    "Can manual segmentation be accurate but involves extensive and time-consuming user interaction?",
    "Can whether BMI-1 autoantibodies be used as a biomarker for cervical carcinoma is unclear?",
    "Can although vasculitis be classified by etiology?",
    "Who is where at risk for Chronic Obstructive Pulmonary Disease?",
    "What is BACKGROUND Alcohol?",
    "What is CONCLUSIONS HAND2 methylation?",
    "Can glioblastoma Subclasses Be Defined by Activity among Signal Transduction Pathways?",
    "What is the design?",
    "What is the present study?",
    "What is also discussed?",
    "What is EphA3 maintains tumorigenicity and?",
    "How do I set up…?",
    "what is this",
]


@pytest.mark.parametrize("question", MALFORMED)
def test_a_malformed_question_is_not_well_formed(question: str) -> None:
    assert not well_formed(question)


@pytest.mark.parametrize("question", sorted({q for _, _, q in SHAPES}))
def test_every_shaped_question_of_the_batteries_is_well_formed(question: str) -> None:
    assert well_formed(question)


@pytest.mark.parametrize(
    "sentence",
    [
        "To aid diagnosis, we developed a panel of six serum markers.",  # "How do I aid diagnosis?": the authors' aim
        "To this end, we analysed 120 biopsies.",
        "To determine the role of Atm, knockout mice were generated.",
        "Manual segmentation can be accurate but involves extensive and time-consuming user interaction.",
        "BACKGROUND Alcohol is a major risk factor for liver disease.",
    ],
)
def test_sentences_of_research_prose_give_no_question(sentence: str) -> None:
    assert [c.text for c in chunk_candidates("c1", sentence)] == []


@pytest.mark.parametrize(
    "question",
    [
        "What are the payment methods?",
        "What is the audit log?",
        "How do I export my data?",
        "What happens if I lose my phone?",
        "Can I pay monthly or annually?",
    ],
)
def test_a_faq_question_stays_well_formed(question: str) -> None:
    assert well_formed(question)
