"""load_regulations: the shipped agency regulations and the GDPR as legal documents, and their chunks."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from agent.answering.context_assembly import assemble_context, context_message
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.query_analysis import analyse_query
from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from compliance.models import LegalDocument
from compliance.services import workspace_create
from law.regulations import FORESKRIFTER_PATH, GDPR_PATH, RecordError, read_records, regulation_from_record
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


def shipped_record(designation: str) -> dict:
    path = GDPR_PATH if designation.startswith("Förordning") else FORESKRIFTER_PATH
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["designation"] == designation:
                return record
    raise LookupError(designation)


def write_records(path: Path, records: list) -> str:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for record in records:
            fh.write((record if isinstance(record, str) else json.dumps(record, ensure_ascii=False)) + "\n")
    return str(path)


def load(*files: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = [arg for f in files for arg in ("--file", f)]
    call_command("load_regulations", *args, "--sync", "--no-progress", stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue().strip()


@pytest.fixture
def small_corpus(tmp_path: Path, clean_queue: None) -> str:
    """AFS 2023:1, AFS 2023:10 and the GDPR: what the tests below load."""
    return write_records(tmp_path / "regs.jsonl.gz", [shipped_record("AFS 2023:1"), shipped_record("AFS 2023:10"),
                                                      shipped_record("Förordning (EU) 2016/679")])


def test_every_shipped_regulation_is_a_record_the_loader_takes() -> None:
    """A regulation whose record lacks a title (or anything else the loader requires) would be skipped by
    every load: the shipped file must hold none, so no parsed regulation is silently missing."""
    refused = []
    records = list(read_records(FORESKRIFTER_PATH))
    for record in records:
        try:
            if record.data is None:
                raise RecordError(record.error)
            regulation_from_record(record.data)
        except RecordError as error:
            refused.append(f"{record.name}: {error}")
    assert refused == []
    assert len(records) == 165  # every PDF of data/foreskrifter's quality.json but the one scanned image


def test_loads_regulations_with_their_metadata(small_corpus: str) -> None:
    output, errors = load(small_corpus)

    assert output.startswith("3 föreskrifter och förordningar lästa, 3 nya eller ändrade, 0 felaktiga")
    assert errors == ""
    afs = LegalDocument.objects.get(sfs_number="AFS 2023:1")
    assert afs.content_type == LegalDocument.ContentType.AGENCY_REGULATION
    assert (afs.agency, afs.series) == ("Arbetsmiljöverket", "AFS")
    assert afs.issued.isoformat() == "2023-09-15" and afs.in_force_date.isoformat() == "2025-01-01"
    assert afs.legal_basis == "18 § arbetsmiljöförordningen (1977:1166)" and afs.legal_basis_sfs == ["1977:1166"]
    assert afs.kind_label == "Föreskrift (AFS)"
    gdpr = LegalDocument.objects.get(sfs_number="(EU) 2016/679")
    assert gdpr.content_type == LegalDocument.ContentType.EU_REGULATION and gdpr.kind_label == "EU-förordning"
    assert "GDPR" in gdpr.abbreviations and "dataskyddsförordningen" in gdpr.short_names
    assert gdpr.source.endswith("CELEX:32016R0679")


def test_each_paragraph_and_advice_is_its_own_chunk_and_advice_is_marked(small_corpus: str) -> None:
    load(small_corpus)
    chunks = {c.citation: c for c in ContentChunk.objects.filter(document_number="AFS 2023:1")}

    section, advice = chunks["3 §"], chunks["3 § allmänt råd (inte bindande)"]
    assert section.kind == "section" and advice.kind == "advice"
    assert section.header.endswith("(AFS 2023:1) > Då gäller föreskrifterna > 3 §")
    assert advice.header.endswith("> 3 § allmänt råd (inte bindande)")
    # The advice is never merged into the binding text of the § it explains, nor the § into the advice.
    assert section.text.startswith("3 §") and "Det systematiska arbetsmiljöarbetet omfattar" not in section.text
    assert advice.text.startswith("Det systematiska arbetsmiljöarbetet omfattar")
    assert ContentChunk.objects.filter(document_number="AFS 2023:1", kind="advice").count() >= 5
    # AFS 2023:10: chapters under avdelningar, and every bilaga.
    ten = ContentChunk.objects.filter(document_number="AFS 2023:10")
    noise = ten.get(citation="2 kap. 4 §")
    assert "Avdelning II: Buller och vibrationer > 2 kap. Buller > Exponeringsvärden > 4 §" in noise.header
    assert ten.filter(kind="appendix").values("citation").distinct().count() == 18


def test_gdpr_articles_by_punkt_and_recitals_not_binding(small_corpus: str) -> None:
    load(small_corpus)
    gdpr = ContentChunk.objects.filter(document_number="(EU) 2016/679")

    first = gdpr.get(citation="artikel 6.1")
    assert first.kind == "article" and "f) Behandlingen är nödvändig för ändamål som rör" in first.text
    assert first.header.startswith("Förordning (EU) 2016/679 – Allmän dataskyddsförordning (GDPR) > Kapitel II")
    recital = gdpr.get(citation="skäl 4")
    assert recital.kind == "recital" and recital.header.endswith("skäl 4 (inte bindande)")
    assert gdpr.filter(kind="recital").values("citation").distinct().count() == 173


def test_second_run_changes_nothing(small_corpus: str) -> None:
    load(small_corpus)
    ids = sorted(ContentChunk.objects.values_list("id", flat=True))
    versions = dict(LegalDocument.objects.values_list("sfs_number", "updated_at"))

    output, _ = load(small_corpus)

    assert output.startswith("3 föreskrifter och förordningar lästa, 0 nya eller ändrade")
    assert sorted(ContentChunk.objects.values_list("id", flat=True)) == ids
    assert dict(LegalDocument.objects.values_list("sfs_number", "updated_at")) == versions


def test_a_bad_record_is_reported_by_name_and_the_rest_loads(tmp_path: Path, clean_queue: None) -> None:
    no_units = {**shipped_record("AFS 2023:2"), "units": []}
    bad_number = {**shipped_record("AFS 2023:3"), "designation": "AFS två"}
    path = write_records(tmp_path / "bad.jsonl.gz", [no_units, "{not json", bad_number, shipped_record("AFS 2023:1")])

    output, errors = load(path)

    assert "1 föreskrifter och förordningar lästa, 1 nya eller ändrade, 3 felaktiga" in output
    assert "Hoppar över AFS 2023:2: inga enheter (units) i posten" in errors
    assert "Hoppar över bad.jsonl.gz:2: ogiltig JSON" in errors
    assert "Hoppar över AFS två: ogiltig beteckning 'AFS två'" in errors
    assert list(LegalDocument.objects.values_list("sfs_number", flat=True)) == ["AFS 2023:1"]


def test_a_record_the_database_refuses_is_reported_and_the_rest_loads(tmp_path: Path, clean_queue: None) -> None:
    too_long = {**shipped_record("AFS 2023:2"), "title": "Arbetsmiljöverkets föreskrifter om " + "ändring " * 130}
    path = write_records(tmp_path / "long.jsonl.gz", [too_long, shipped_record("AFS 2023:1")])

    output, errors = load(path)

    assert "1 föreskrifter och förordningar lästa, 1 nya eller ändrade, 1 felaktiga" in output
    assert "Hoppar över AFS 2023:2: title: Säkerställ att detta värde har som mest 1000 tecken" in errors
    assert list(LegalDocument.objects.values_list("sfs_number", flat=True)) == ["AFS 2023:1"]
    assert not ContentChunk.objects.filter(document_number="AFS 2023:2").exists()


def test_a_new_title_for_the_same_text_is_carried_into_every_chunk(tmp_path: Path, clean_queue: None) -> None:
    """The chunks' headers and stored title come from the document's title: a reload that corrects the title
    (a parser fix) chunks the unchanged text again under it."""
    record = shipped_record("AFS 2023:1")
    load(write_records(tmp_path / "a.jsonl.gz", [record]))
    retitled = {**record, "title": record["title"] + " (rättad rubrik)"}

    output, _ = load(write_records(tmp_path / "b.jsonl.gz", [retitled]))

    assert "1 nya eller ändrade" in output
    chunks = ContentChunk.objects.filter(document_number="AFS 2023:1")
    assert chunks.exists()
    assert set(chunks.values_list("document_title", flat=True)) == {retitled["title"]}
    assert all("(rättad rubrik)" in header for header in chunks.values_list("header", flat=True))
    # Loaded again unchanged, nothing is chunked again.
    assert "0 nya eller ändrade" in load(write_records(tmp_path / "c.jsonl.gz", [retitled]))[0]


def test_a_changed_text_keeps_the_vectors_of_unchanged_chunks(tmp_path: Path, clean_queue: None) -> None:
    record = shipped_record("AFS 2023:1")
    load(write_records(tmp_path / "a.jsonl.gz", [record]))
    ContentChunk.objects.update(embedding=[0.1] * settings.EMBEDDING_DIMENSIONS, embedding_model=active_model_name())
    before = ContentChunk.objects.count()
    changed = json.loads(json.dumps(record))
    unit = next(u for u in changed["units"] if u["citation"] == "7 §")
    unit["stycken"][0] += " Policyn ska ses över varje år."

    output, _ = load(write_records(tmp_path / "b.jsonl.gz", [changed]))

    assert "1 nya eller ändrade" in output
    chunks = ContentChunk.objects.filter(document_number="AFS 2023:1")
    assert chunks.count() == before
    assert list(chunks.filter(embedding__isnull=True).values_list("citation", flat=True)) == ["7 §"]


def test_gdpr_article_6_1_f_found_by_keyword_and_advice_labelled_in_context(small_corpus: str) -> None:
    load(small_corpus)
    user = make_user("dpo")
    workspace = workspace_create(name="Bolaget", owner=user)
    get_retrieval_cache().clear()

    result = retrieve_context("berättigade intressen tredje part personuppgiftsansvarige", workspace, user=user,
                              options=RetrievalOptions(mode="keyword"))
    assert "artikel 6.1" in [c.citation for c in result.chunks[:5] if c.document_number == "(EU) 2016/679"]
    gdpr_hit = next(c for c in result.chunks if c.citation == "artikel 6.1")
    assert gdpr_hit.kind == "EU-förordning"

    result = retrieve_context("arbetsmiljöpolicy beskriva långsiktiga arbetet", workspace, user=user,
                              options=RetrievalOptions(mode="keyword"))
    advice = next(c for c in result.chunks if c.citation == "7 § allmänt råd (inte bindande)")
    section = next(c for c in result.chunks if c.citation == "7 §" and c.document_number == "AFS 2023:1")
    assert advice.kind == "Allmänt råd" and section.kind == "Föreskrift (AFS)"
    assert advice.to_dict()["kind"] == "Allmänt råd"
    context = assemble_context([section, advice])
    n_advice = next(n for n, c in context.citations.items() if c.chunk_id == advice.chunk_id)
    n_section = next(n for n, c in context.citations.items() if c.chunk_id == section.chunk_id)
    message = context_message(context)["content"]
    assert f"[{n_advice}] allmänt råd (inte bindande)" in message
    assert f"[{n_section}] Föreskrift (AFS)" in message
    assert f"Källa [{n_advice}]: " in message and "> 7 § allmänt råd (inte bindande) ---" in message


def test_a_regulation_named_by_its_number_is_ranked_first(small_corpus: str) -> None:
    load(small_corpus)
    user = make_user("arbetsmiljo")
    workspace = workspace_create(name="Verkstaden", owner=user)
    get_retrieval_cache().clear()
    question = "Vad måste arbetsgivaren dokumentera i riskbedömningen enligt AFS 2023:1?"
    assert [r.sfs for r in analyse_query(question).references] == ["AFS 2023:1"]
    for mode in ("keyword", "hybrid"):
        result = retrieve_context(question, workspace, user=user, options=RetrievalOptions(mode=mode, top_k=10))
        assert result.chunks[0].document_number == "AFS 2023:1", mode
    # Named in other words, the series and the EU act too; a statute's SFS number stays the parser's.
    refs = analyse_query("Gäller MSBFS 2020:1, ELSÄK-FS 2022:1 och förordning (EU) 2016/679 oss? SFS 1977:1160?")
    assert [r.sfs for r in refs.references if not r.sfs[0].isdigit()] == ["MSBFS 2020:1", "ELSÄK-FS 2022:1",
                                                                          "(EU) 2016/679"]


def test_a_load_finds_the_statutes_a_regulation_details_in_either_order(small_corpus: str) -> None:
    # AFS 2023:1 rests on arbetsmiljöförordningen and cites arbetsmiljölagen throughout.
    load(small_corpus)
    assert LegalDocument.objects.get(sfs_number="AFS 2023:1").details_sfs == []  # neither statute loaded yet
    call_command("load_sfs", "--only", "1977:1160,1977:1166", "--sync", stdout=io.StringIO(), stderr=io.StringIO())
    details = dict(LegalDocument.objects.values_list("sfs_number", "details_sfs"))
    assert details["AFS 2023:1"] == ["1977:1160", "1977:1166"]
    assert details["1977:1160"] == details["(EU) 2016/679"] == []  # only agency regulations detail statutes
