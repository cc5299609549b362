"""Who cites whom (law.citations): the counts behind retrieval's citation prior, on texts of our own."""

from __future__ import annotations

import pytest

from compliance.models import LegalDocument
from compliance.services import LegalDocumentData, legal_document_upsert
from law.citations import CitationCounter, CorpusDocument, DetailedStatutes, citation_key, numbers_cited
from law.services import legal_document_cited_by_refresh, legal_document_details_refresh

CORPUS = [
    CorpusDocument("2090:1", ["hundlagen"]),
    CorpusDocument("2090:2", []),
    CorpusDocument("2090:3", []),
    CorpusDocument("AFS 2090:3", []),
    CorpusDocument("(EU) 2090/7", ["hundförordningen"]),
    # Two documents known by the same name: it names neither.
    CorpusDocument("2090:4", ["djurlagen"]),
    CorpusDocument("2090:5", ["djurlagen"]),
]


def counted(texts: dict[str, str]) -> dict[str, int]:
    counter = CitationCounter(CORPUS)
    for number, text in texts.items():
        counter.read(number, text)
    return counter.counts


def test_numbers_are_read_in_every_written_form() -> None:
    text = ("Bestämmelser finns i lagen (2090:1), i SFS 2090:2 och i Arbetsmiljöverkets föreskrifter AFS 2090:3. "
            "Se även förordning (EU) nr 2090/7 och 2090:12 3 §.")
    assert numbers_cited(text) == {"2090:1", "2090:2", "AFS 2090:3", "EU 2090/7", "2090:12"}
    assert citation_key("(EU) 2090/7") == "EU 2090/7"
    assert citation_key("AFS 2090:3") == "AFS 2090:3"


def test_an_agency_number_is_not_also_the_sfs_number_it_contains() -> None:
    assert "2090:3" not in numbers_cited("Enligt AFS 2090:3 ska arbetsgivaren …")
    # A series and number that is no loaded document is an abbreviation before a statute's number.
    assert numbers_cited("Enligt MBL 2090:3 ska …", {"2090:3"}) == {"2090:3"}
    assert numbers_cited("Enligt AFS 2090:3 ska …", {"2090:3", "AFS 2090:3"}) == {"AFS 2090:3"}


def test_each_citing_document_counts_once_and_never_itself() -> None:
    counts = counted({
        "2090:2": "Se lagen (2090:1). Se också 2090:1 2 § och hundlagens 3 §.",
        "2090:3": "Enligt hundlagen gäller …",
        "2090:1": "Denna lag (2090:1) gäller hundar.",  # itself
    })
    assert counts["2090:1"] == 2


def test_names_and_eu_numbers_count_and_a_shared_name_names_neither() -> None:
    counts = counted({
        "2090:1": "Av hundförordningen följer …",
        "2090:2": "Förordning (EU) 2090/7 gäller.",
        "2090:3": "Enligt djurlagen …",
        "AFS 2090:3": "Med stöd av 2090:3 föreskriver Arbetsmiljöverket …",
    })
    assert counts["(EU) 2090/7"] == 2
    assert counts["2090:4"] == counts["2090:5"] == 0
    assert counts["2090:3"] == 1 and counts["AFS 2090:3"] == 0


@pytest.mark.django_db
def test_the_refresh_writes_the_counts_and_only_changed_ones() -> None:
    for number, text in (("2090:1", "1 § Hundar ska hållas under tillsyn."),
                         ("2090:2", "1 § Se lagen (2090:1)."),
                         ("2090:3", "1 § Se lagen (2090:1) och förordningen (2090:2).")):
        legal_document_upsert(LegalDocumentData(sfs_number=number, title=f"Lag ({number}) om hundar",
                                                full_text=text), process=False)
    assert legal_document_cited_by_refresh() == 2
    assert dict(LegalDocument.objects.values_list("sfs_number", "cited_by")) == {
        "2090:1": 2, "2090:2": 1, "2090:3": 0}
    assert legal_document_cited_by_refresh() == 0  # idempotent


STATUTES = {"2090:1", "2090:2", "2090:3", "2090:4", "2090:5"}


def test_a_regulation_details_the_statutes_it_cites_in_most_sentences_and_its_legal_basis() -> None:
    finder = DetailedStatutes(CORPUS, STATUTES)
    text = ("1 § Dessa föreskrifter gäller hundar som avses i hundlagen (2090:1). "
            "2 § Den som håller hund ska uppfylla kraven i 3 § hundlagen. "
            "3 § Hundens ägare ska föra anteckningar enligt 4 § hundlagen; se också lagen (2090:3).")
    # 2090:1 cited in three sentences (by number and by name), 2090:3 in one: a mention in passing.
    assert finder.of("AFS 2090:9", text) == ["2090:1"]
    # The legal basis is detailed too, whatever the text says; a basis outside the statutes is not.
    assert finder.of("AFS 2090:9", text, legal_basis=["2090:2", "AFS 2090:3"]) == ["2090:1", "2090:2"]


def test_another_regulation_is_never_read_as_the_statute_whose_number_it_contains() -> None:
    finder = DetailedStatutes(CORPUS, STATUTES)
    text = "1 § Se AFS 2090:3. 2 § Kraven i AFS 2090:3 gäller också. 3 § Se även AFS 2090:3 bilaga 1."
    assert finder.of("AFS 2090:9", text) == []  # AFS 2090:3 is a regulation, not SFS 2090:3


def test_at_most_two_statutes_by_their_sentence_counts() -> None:
    finder = DetailedStatutes(CORPUS, STATUTES)
    text = " ".join([*["Se lagen (2090:2)."] * 4, *["Se lagen (2090:3)."] * 3, *["Se lagen (2090:1)."] * 2])
    assert finder.of("AFS 2090:9", text) == ["2090:2", "2090:3"]


def test_a_tie_goes_to_the_statute_cited_first_whatever_the_process() -> None:
    finder = DetailedStatutes(CORPUS, STATUTES)
    text = "Se lagen (2090:3) och lagen (2090:2). Se lagen (2090:2) och lagen (2090:3). Se lagen (2090:1) två gånger."
    assert finder.of("AFS 2090:9", text) == ["2090:2", "2090:3"]  # 2 each; the one sentence citing both is sorted
    text = "Se lagen (2090:3). Se lagen (2090:2). Se lagen (2090:3). Se lagen (2090:2). Se lagen (2090:1)."
    assert finder.of("AFS 2090:9", text) == ["2090:3", "2090:2"]


@pytest.mark.django_db
def test_the_details_refresh_writes_the_regulations_and_only_changed_ones() -> None:
    for number, text in (("2090:1", "1 § Hundar ska hållas under tillsyn."),
                         ("2090:2", "1 § Se lagen (2090:1). 2 § Se lagen (2090:1).")):
        legal_document_upsert(LegalDocumentData(sfs_number=number, title=f"Lag ({number}) om hundar",
                                                full_text=text), process=False)
    legal_document_upsert(LegalDocumentData(
        sfs_number="AFS 2090:9", title="Arbetsmiljöverkets föreskrifter om hundar", series="AFS",
        content_type=LegalDocument.ContentType.AGENCY_REGULATION, legal_basis_sfs=["2090:2"],
        full_text="1 § Kraven i lagen (2090:1) gäller. 2 § Se 2 § lagen (2090:1)."), process=False)
    assert legal_document_details_refresh() == 1
    assert dict(LegalDocument.objects.values_list("sfs_number", "details_sfs")) == {
        "2090:1": [], "2090:2": [], "AFS 2090:9": ["2090:1", "2090:2"]}  # a statute details nothing
    assert legal_document_details_refresh() == 0  # idempotent
