"""The statute vectors shipped with the corpus: what the model computes, never stale, local model only."""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from chunks.chunking import chunk_statute
from chunks.embedding import active_model_name, get_provider, passage_text
from chunks.models import ContentChunk
from chunks.services import chunk_document, embed_chunk_batch
from chunks.shipped_vectors import (
    book_path,
    default_path,
    load,
    records_path,
    regulations_path,
    save,
    shipped_vectors,
)
from compliance.models import LegalDocument, ProcessingStatus, content_hash
from compliance.services import LegalDocumentData, legal_document_upsert
from law.regulations import FORESKRIFTER_PATH
from law.sfs_corpus import read_book_lines, read_corpus
from tests.chunks.conftest import queued_task_calls
from tests.corpus import corpus_record
from tests.law.sfs_records_fixtures import OLD_TEXT, record, write_records

SMALL_SFS = "1998:209"  # nine chunks
# float16 keeps ~11 significant bits: components of a unit 384-d vector (|x| < 0.5) round by < 2.5e-4.
FLOAT16_ATOL = 1e-3


def corpus_chunks() -> list[tuple[str, str]]:
    """(sfs, passage text) of every chunk the current parser makes of the bundled corpus."""
    return [(r["sfs"], passage_text(d.header, d.text)) for r in read_corpus(settings.SFS_CORPUS_PATH)
            for d in chunk_statute(r["title"], r["sfs"], r["text"])]


def load_sfs(*args: str) -> str:
    out = io.StringIO()
    call_command("load_sfs", *args, "--no-progress", stdout=out)
    return out.getvalue().strip()


def queued_chunk_ids() -> list[int]:
    return sorted(cid for (ids,), _ in queued_task_calls("chunks.tasks.embed_chunks") for cid in ids)


@pytest.mark.slow
def test_shipped_vectors_cover_whole_statutes_and_equal_what_the_model_computes() -> None:
    shipped = shipped_vectors()
    assert shipped is not None, f"no shipped vectors for {active_model_name()} at {default_path()}"
    chunks = corpus_chunks()
    assert len({sfs for sfs, _ in chunks}) == 177
    # The file holds whole statutes (build_sfs_vectors writes them so). A statute only partly covered
    # means the parser now cuts or words its chunks differently: rebuild with `manage.py build_sfs_vectors`.
    by_statute: dict[str, list[bool]] = {}
    for sfs, text in chunks:
        by_statute.setdefault(sfs, []).append(content_hash(text) in shipped)
    partial = sorted(sfs for sfs, covered in by_statute.items() if any(covered) and not all(covered))
    assert partial == [], f"statutes with stale shipped vectors: {partial}"
    whole = {sfs for sfs, covered in by_statute.items() if all(covered)}
    assert {"1977:1160", "1982:80", "2008:567", "2018:218", "2017:630"} <= whole <= set(by_statute)

    # Every shipped vector is what the model makes of that exact text (a sample across the file).
    covered = [(sfs, text) for sfs, text in chunks if content_hash(text) in shipped]
    sample = random.Random(13).sample(covered, 24)
    computed = get_provider().embed_passages([text for _, text in sample])
    for (sfs, text), vector in zip(sample, computed):
        stored = shipped.get(content_hash(text))
        assert stored.dtype == np.float32 and stored.shape == vector.shape
        assert np.allclose(stored, vector, atol=FLOAT16_ATOL, rtol=0), (sfs, text[:80])
        assert float(stored @ vector) / float(np.linalg.norm(stored)) > 0.99999


@pytest.mark.django_db
def test_load_uses_shipped_vectors_and_a_changed_text_gets_none(clean_queue: None) -> None:
    record = corpus_record(SMALL_SFS)
    drafts = chunk_statute(record["title"], SMALL_SFS, record["text"])
    target = drafts[len(drafts) // 2]
    assert record["text"].count(target.text) == 1
    changed_text = record["text"].replace(target.text, target.text + " Denna mening har lagts till.")
    doc = legal_document_upsert(LegalDocumentData(sfs_number=SMALL_SFS, title=record["title"],
                                                  full_text=changed_text), process=False).document

    result = chunk_document("LEGAL_DOCUMENT", doc.pk)

    chunks = {c.path: c for c in ContentChunk.objects.filter(legal_document=doc)}
    assert len(chunks) == len(drafts) == result.chunks
    changed = chunks[target.path]
    assert "Denna mening har lagts till." in changed.text
    assert changed.embedding is None and changed.embedding_model == ""  # no stale vector for new text
    assert result.to_embed == [changed.pk]
    assert result.shipped_embeddings == len(drafts) - 1
    shipped = shipped_vectors()
    for chunk in chunks.values():
        if chunk.pk != changed.pk:
            assert chunk.embedding_model == active_model_name()
            # pgvector keeps float4: the shipped float16 value, give or take its text round trip.
            assert np.allclose(chunk.embedding, shipped.get(chunk.content_hash), atol=1e-7, rtol=0)
    doc.refresh_from_db()
    assert (doc.status, doc.chunks_embedded, doc.chunks_total) == (
        ProcessingStatus.PROCESSING, len(drafts) - 1, len(drafts))


@pytest.mark.django_db
def test_load_sfs_of_the_bundled_text_is_searchable_at_once_and_queues_nothing(clean_queue: None,
                                                                               django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        assert load_sfs("--only", SMALL_SFS, "--sync") == "1 författningar lästa, 1 nya eller ändrade."

    doc = LegalDocument.objects.get(sfs_number=SMALL_SFS)
    assert doc.status == ProcessingStatus.DONE and doc.processed_at is not None
    assert doc.chunks_embedded == doc.chunks_total == 9
    assert not ContentChunk.objects.filter(legal_document=doc, embedding__isnull=True).exists()
    assert queued_chunk_ids() == []


@pytest.mark.django_db
def test_another_embedding_model_ignores_the_shipped_vectors(settings: Settings, clean_queue: None,
                                                             django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> None:
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "text-embedding-3-small"
    assert shipped_vectors() is None

    # The vectors are queued once the statute's transaction commits.
    with django_capture_on_commit_callbacks(execute=True):
        load_sfs("--only", SMALL_SFS, "--sync")

    doc = LegalDocument.objects.get(sfs_number=SMALL_SFS)
    assert doc.status == ProcessingStatus.PROCESSING and doc.chunks_embedded == 0
    ids = sorted(ContentChunk.objects.filter(legal_document=doc).values_list("id", flat=True))
    assert len(ids) == 9
    assert not ContentChunk.objects.filter(embedding__isnull=False).exists()
    assert queued_chunk_ids() == ids  # everything goes to the worker, as without shipped vectors


@pytest.mark.django_db
def test_build_sfs_vectors_computes_with_the_model_and_reuses_stored_vectors(tmp_path: Path, settings: Settings,
                                                                             clean_queue: None) -> None:
    computed_path = tmp_path / "computed.npz"
    out = io.StringIO()
    call_command("build_sfs_vectors", "--only", SMALL_SFS, "--no-reuse", "--output", str(computed_path),
                 "--no-progress", stdout=out)
    report = json.loads(out.getvalue())
    assert (report["statutes"], report["chunks"], report["reused"], report["computed"]) == (1, 9, 0, 9)

    computed = load(computed_path)
    assert (computed.model, computed.dimensions, len(computed)) == (active_model_name(), 384, 9)
    shipped = shipped_vectors()
    record = corpus_record(SMALL_SFS)
    for draft in chunk_statute(record["title"], SMALL_SFS, record["text"]):
        key = content_hash(passage_text(draft.header, draft.text))
        assert np.allclose(computed.get(key), shipped.get(key), atol=FLOAT16_ATOL, rtol=0)

    # Vectors this database already holds for the same text and model are reused, not recomputed.
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    out = io.StringIO()
    call_command("build_sfs_vectors", "--only", SMALL_SFS, "--reuse-only", "--output", str(tmp_path / "empty.npz"),
                 "--no-progress", stdout=out)
    assert (json.loads(out.getvalue())["shipped"], json.loads(out.getvalue())["computed"]) == (0, 0)

    settings.SFS_VECTORS_PATH = str(computed_path)
    load_sfs("--only", SMALL_SFS, "--sync")
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")  # so only the database can supply them
    out = io.StringIO()
    call_command("build_sfs_vectors", "--only", SMALL_SFS, "--output", str(tmp_path / "reused.npz"),
                 "--no-progress", stdout=out)
    assert json.loads(out.getvalue())["reused"] == 9 and json.loads(out.getvalue())["computed"] == 0
    reused = load(tmp_path / "reused.npz")
    assert all(np.allclose(reused.get(k), computed.get(k), atol=1e-7, rtol=0) for k in computed._index)


def test_build_sfs_vectors_only_rebuilds_those_statutes_and_keeps_the_others(tmp_path: Path) -> None:
    """After a parser change that touches a few statutes, `--only` renews them in the shipped file without dropping
    the rest of it."""
    path = tmp_path / "vectors.npz"

    def build(number: str) -> dict:
        out = io.StringIO()
        call_command("build_sfs_vectors", "--only", number, "--no-reuse", "--output", str(path), "--no-progress",
                     stdout=out)
        return json.loads(out.getvalue())

    first = build(SMALL_SFS)
    before = load(path)
    second = build("1989:253")

    after = load(path)
    assert len(after) == first["chunks"] + second["chunks"] and second["computed"] == second["chunks"]
    for key in before.keys():  # the first statute's vectors are still there, unchanged
        assert np.allclose(after.get(key), before.get(key), atol=1e-7, rtol=0)


@pytest.mark.django_db
def test_the_book_file_is_int8_beside_the_curated_one_and_loading_uses_it(tmp_path: Path, settings: Settings,
                                                                          clean_queue: None) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "vectors.npz")  # no curated file: only the book's, beside it
    out = io.StringIO()
    call_command("build_sfs_vectors", "--book", "--only", "1996:1615", "--no-reuse", "--no-progress", stdout=out)
    report = json.loads(out.getvalue())
    assert report["output"] == str(tmp_path / "vectors-book.npz") == str(book_path())
    assert (report["statutes"], report["computed"]) == (1, report["chunks"])
    with np.load(book_path()) as data:
        assert data["vectors"].dtype == np.int8 and data["scales"].shape == (report["chunks"],)

    record = next(line.record for line in read_book_lines(settings.SFS_BOOK_PATH) if line.number == "1996:1615")
    drafts = chunk_statute(record["title"], "1996:1615", record["text"])
    texts = [passage_text(d.header, d.text) for d in drafts]
    computed = get_provider().embed_passages(texts)
    shipped = shipped_vectors()
    for text, vector in zip(texts, computed):
        stored = shipped.get(content_hash(text))
        # int8 keeps the direction: cosine to what the model computes above 0.9999.
        assert float(stored @ vector) / float(np.linalg.norm(stored) * np.linalg.norm(vector)) > 0.9999

    doc = legal_document_upsert(LegalDocumentData(sfs_number="1996:1615", title=record["title"],
                                                  full_text=record["text"]), process=False).document
    result = chunk_document("LEGAL_DOCUMENT", doc.pk)
    assert result.shipped_embeddings == len(drafts) and result.to_embed == []


@pytest.mark.django_db
def test_a_statute_chunked_before_its_vectors_shipped_takes_them_instead_of_the_model(tmp_path: Path,
                                                                                      settings: Settings,
                                                                                      clean_queue: None) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "vectors.npz")  # no vector file yet: the chunks wait for the model
    record = corpus_record(SMALL_SFS)
    doc = legal_document_upsert(LegalDocumentData(sfs_number=SMALL_SFS, title=record["title"],
                                                  full_text=record["text"]), process=False).document
    result = chunk_document("LEGAL_DOCUMENT", doc.pk)
    assert result.shipped_embeddings == 0 and len(result.to_embed) == result.chunks

    # A newer vector file arrives (a pull) while the chunks are still queued.
    call_command("build_sfs_vectors", "--only", SMALL_SFS, "--no-reuse", "--no-progress", stdout=io.StringIO())
    assert embed_chunk_batch(result.to_embed) == result.chunks

    shipped = shipped_vectors()
    for chunk in ContentChunk.objects.filter(legal_document=doc):
        assert chunk.embedding_model == active_model_name()
        # The file's float16 value, not a fresh model run (which differs from it by up to ~2.5e-4).
        assert np.allclose(chunk.embedding, shipped.get(chunk.content_hash), atol=1e-7, rtol=0)
    doc.refresh_from_db()
    assert (doc.status, doc.chunks_embedded) == (ProcessingStatus.DONE, result.chunks)


@pytest.mark.django_db
def test_the_records_file_holds_what_no_other_file_has_and_a_sync_takes_its_vectors(tmp_path: Path, settings: Settings,
                                                                                   clean_queue: None) -> None:
    """make run applies the official records: an amended statute's new §§ are searchable by meaning at once too."""
    title = "Lag (2099:1) om provföretag"
    settings.SFS_VECTORS_PATH = str(tmp_path / "vectors.npz")
    old = [passage_text(d.header, d.text) for d in chunk_statute(title, "2099:1", OLD_TEXT)]
    # The curated file has the statute as the corpus had it.
    save(default_path(), {content_hash(text): vector for text, vector in zip(old, get_provider().embed_passages(old))},
         model=active_model_name(), dimensions=settings.EMBEDDING_DIMENSIONS)
    records = write_records(tmp_path / "r.jsonl", [record("2099:1")])
    out = io.StringIO()

    call_command("build_sfs_vectors", "--records", str(records), "--no-reuse", "--no-progress", stdout=out)

    report = json.loads(out.getvalue())
    assert report["output"] == str(tmp_path / "vectors-records.npz") == str(records_path())
    shipped_records = load(records_path())
    # 1 § reads as before: its vector is the curated file's, not shipped twice.
    unchanged = content_hash(old[0])
    assert unchanged not in shipped_records and unchanged in load(default_path())
    assert report["statutes"] == 1 and report["computed"] == report["chunks"] == len(shipped_records) > 2
    with np.load(records_path()) as data:
        assert data["vectors"].dtype == np.int8

    doc = legal_document_upsert(LegalDocumentData(sfs_number="2099:1", title=title, full_text=OLD_TEXT,
                                                  amended_through="SFS 2099:5"), process=False).document
    chunk_document("LEGAL_DOCUMENT", doc.pk)
    sync_out = io.StringIO()
    call_command("sync_sfs", "--file", str(records), "--sync", "--no-progress", stdout=sync_out, stderr=io.StringIO())
    assert "1 nya versioner" in sync_out.getvalue() and "0 avsnitt att bädda in" in sync_out.getvalue()
    chunks = ContentChunk.objects.filter(legal_document=doc)
    assert chunks.filter(text__contains="digitalt").exists()
    assert not chunks.filter(embedding__isnull=True).exists()  # nothing left for the model
    assert queued_chunk_ids() == []


@pytest.mark.django_db
def test_the_regulations_file_is_int8_and_loading_a_regulation_takes_its_vectors(tmp_path: Path, settings: Settings,
                                                                                 clean_queue: None) -> None:
    """The agency regulations and the GDPR ship vectors too: loaded, they are searchable by meaning at once."""
    number = "MSBFS 2020:5"
    settings.SFS_VECTORS_PATH = str(tmp_path / "vectors.npz")  # no other file: only the regulations', beside it
    out = io.StringIO()
    call_command("build_sfs_vectors", "--regulations", "--only", number, "--no-reuse", "--no-progress", stdout=out)
    report = json.loads(out.getvalue())
    assert report["output"] == str(tmp_path / "vectors-regulations.npz") == str(regulations_path())
    assert report["statutes"] == 1 and report["computed"] == report["chunks"] > 1
    with np.load(regulations_path()) as data:
        assert data["vectors"].dtype == np.int8 and data["scales"].shape == (report["chunks"],)

    with gzip.open(FORESKRIFTER_PATH, "rt", encoding="utf-8") as lines:
        line = next(line for line in lines if json.loads(line).get("designation") == number)
    one = tmp_path / "one.jsonl.gz"
    with gzip.open(one, "wt", encoding="utf-8") as f:
        f.write(line)
    call_command("load_regulations", "--file", str(one), "--sync", "--no-progress", stdout=io.StringIO())
    chunks = ContentChunk.objects.filter(legal_document__sfs_number=number)
    assert chunks.count() == report["chunks"]
    assert not chunks.filter(embedding__isnull=True).exists()  # nothing left for the model
    assert queued_chunk_ids() == []

    with pytest.raises(CommandError):
        call_command("build_sfs_vectors", "--regulations", "--only", "MSBFS 1899:1", "--no-progress")


@pytest.mark.django_db
def test_build_sfs_vectors_takes_a_historical_number_and_refuses_a_word(tmp_path: Path) -> None:
    out = io.StringIO()
    # Handelsbalken's parts carry the historical numbers the book file holds: its vectors come from that file.
    call_command("build_sfs_vectors", "--book", "--only", "1736:0123 2", "--reuse-only",
                 "--output", str(tmp_path / "book.npz"), "--no-progress", stdout=out)
    report = json.loads(out.getvalue())
    assert report["statutes"] == report["statutes_shipped"] == 1
    assert report["shipped"] == report["chunks"] > 0 and report["computed"] == 0
    with pytest.raises(CommandError, match="invalid SFS number"):
        call_command("build_sfs_vectors", "--book", "--only", "1736:0123 2,handelsbalken", "--reuse-only",
                     "--output", str(tmp_path / "book.npz"), "--no-progress", stdout=io.StringIO())
