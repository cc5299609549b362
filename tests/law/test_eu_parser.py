"""Tests of law.parsers.eu against the GDPR in Swedish (a copy in tests/law/fixtures)."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from law.parsers.eu import ParsedEURegulation, parse_eu_regulation

SOURCE = Path(__file__).resolve().parent / "fixtures" / "gdpr-sv.html"


@lru_cache(maxsize=1)
def gdpr() -> ParsedEURegulation:
    return parse_eu_regulation(SOURCE)


def test_identity_and_structure() -> None:
    regulation = gdpr()
    assert regulation.celex == "32016R0679"
    assert regulation.designation == "Förordning (EU) 2016/679"
    assert regulation.title == "Allmän dataskyddsförordning (GDPR)"
    assert [n for n, _ in regulation.chapters] == "I II III IV V VI VII VIII IX X XI".split()
    assert regulation.chapters[1] == ("II", "Principer")
    assert [a.number for a in regulation.articles] == [str(n) for n in range(1, 100)]
    assert regulation.article(5).chapter == "II" and regulation.article(99).chapter == "XI"
    assert regulation.article(6).title == "Laglig behandling av personuppgifter"


def test_recitals_are_numbered_and_not_binding() -> None:
    recitals = gdpr().recitals
    assert [r.number for r in recitals] == list(range(1, 174))
    assert all(not r.binding and r.text for r in recitals)
    assert recitals[0].text.startswith("Skyddet för fysiska personer vid behandling av personuppgifter är en "
                                       "grundläggande rättighet.")
    assert gdpr().find("skäl 173").startswith("Denna förordning bör vara tillämplig")
    # Footnote reference numbers are dropped, not glued into the text ("95/46/EG 4 syftar").
    assert "95/46/EG syftar" in recitals[2].text


def test_article_5_principles() -> None:
    article = gdpr().article(5)
    assert [p.number for p in article.paragraphs] == ["1", "2"]
    assert [q.letter for q in article.paragraphs[0].points] == list("abcdef")
    storage = gdpr().find("artikel 5.1 e")
    assert storage.startswith("De får inte förvaras i en form som möjliggör identifiering av den registrerade "
                              "under en längre tid än vad som är nödvändigt")
    assert storage.endswith("(lagringsminimering).")
    assert gdpr().find("artikel 5.2").startswith("Den personuppgiftsansvarige ska ansvara för")


def test_article_6_1_f() -> None:
    assert gdpr().find("artikel 6.1 f") == (
        "Behandlingen är nödvändig för ändamål som rör den personuppgiftsansvariges eller en tredje parts "
        "berättigade intressen, om inte den registrerades intressen eller grundläggande rättigheter och friheter "
        "väger tyngre och kräver skydd av personuppgifter, särskilt när den registrerade är ett barn.")
    one = gdpr().article(6).paragraphs[0]
    # The sentence after the points belongs to the paragraph, not to point f.
    assert one.stycken == ["Behandling är endast laglig om och i den mån som åtminstone ett av följande villkor "
                           "är uppfyllt:",
                           "Led f i första stycket ska inte gälla för behandling som utförs av offentliga "
                           "myndigheter när de fullgör sina uppgifter."]
    assert [p.number for p in gdpr().article(6).paragraphs] == ["1", "2", "3", "4"]
    assert gdpr().find("art. 6.3 b") == "en medlemsstats nationella rätt som den personuppgiftsansvarige omfattas av."


def test_article_9_2_g() -> None:
    assert gdpr().find("artikel 9.2 g").startswith(
        "Behandlingen är nödvändig av hänsyn till ett viktigt allmänt intresse, på grundval av unionsrätten")
    two = gdpr().article(9).paragraphs[1]
    assert [q.letter for q in two.points] == list("abcdefghij")
    assert gdpr().find("artikel 9.1").endswith("ska vara förbjuden.")
    with pytest.raises(KeyError):
        gdpr().find("artikel 9.2 k")


def test_definitions_of_article_4_including_tables() -> None:
    four = gdpr().article(4)
    assert four.paragraphs[0].number is None and four.paragraphs[0].stycken == ["I denna förordning avses med"]
    assert [p.number for p in four.paragraphs[1:]] == [str(n) for n in range(1, 27)]
    assert gdpr().find("artikel 4.1").startswith("personuppgifter: varje upplysning")
    assert [q.letter for q in four.paragraphs[16].points] == ["a", "b"]  # 16: in a table in the HTML


def test_unnumbered_article() -> None:
    ten = gdpr().article(10)
    assert len(ten.paragraphs) == 1 and ten.paragraphs[0].number is None
    assert ten.text.startswith("Behandling av personuppgifter som rör fällande domar")


def test_eur_lex_links() -> None:
    assert gdpr().article(6).url == "https://eur-lex.europa.eu/legal-content/SV/TXT/?uri=CELEX:32016R0679#art_6"
    assert gdpr().recitals[38].url.endswith("CELEX:32016R0679#rct_39")


def test_every_paragraph_numbered_in_order_and_no_word_lost() -> None:
    regulation = gdpr()
    for article in regulation.articles:
        numbers = [p.number for p in article.paragraphs if p.number]
        assert numbers == [str(n) for n in range(1, len(numbers) + 1)], article.citation
        for paragraph in article.paragraphs:
            letters = [q.letter for q in paragraph.points]
            assert letters == [chr(ord("a") + i) for i in range(len(letters))], article.citation
            assert all(q.text for q in paragraph.points), article.citation
    # Every word of the body's and preamble's <p>s (footnote numbers aside) is in the parse.
    soup = BeautifulSoup(SOURCE.read_text(encoding="utf-8"), "lxml")
    for note in soup.select("sup.footnote-ref"):
        note.decompose()
    source = Counter()
    for selector in ("div.body p", "div.preamble div[id^=rct_] p"):
        for p in soup.select(selector):
            source.update(w.lower() for w in re.findall(r"\w+", p.get_text(" ")))
    parsed = Counter()
    for article in regulation.articles:
        parsed.update(w.lower() for w in re.findall(r"\w+", article.text))
    for recital in regulation.recitals:
        parsed.update(w.lower() for w in re.findall(r"\w+", recital.text))
    assert source - parsed == Counter()
