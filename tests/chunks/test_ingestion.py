"""Sources become chunks: uploaded files, statutes and assessments.

Mostly synchronous calls to the services the worker runs (chunk_document,
embed_chunk_batch) against the real database and the real embedding model;
one end-to-end test goes through a real Celery worker process. Statutes are
small ones from the bundled corpus, so there is little to embed.
"""

from __future__ import annotations

import io
import mimetypes
import os
from collections.abc import Callable
from pathlib import Path

import docx
import numpy as np
import pytest
from django.contrib.auth.models import User
from django.contrib.postgres.search import SearchQuery
from django.core.files.uploadedfile import SimpleUploadedFile
from pytest_django import Settings

from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from chunks.embedding import active_model_name
from chunks.models import ContentChunk, SourceType
from chunks.services import chunk_document, embed_chunk_batch
from compliance.models import Assessment, LegalDocument, ProcessingStatus, UserFile, Workspace
from compliance.services import (
    LegalDocumentData,
    UploadError,
    assessment_save,
    legal_document_upsert,
    user_file_delete,
    user_file_upload,
    workspace_create,
)
from tests.chunks.conftest import Worker, WorkerFactory, wait_for
from tests.chunks.test_extract import PDF_PAGES, make_encrypted_pdf, make_pdf, make_zip
from tests.corpus import corpus_record, load_statutes
from tests.helpers import make_user

SMALL_SFS = "2018:1277"  # nine short chunks: cheap to embed


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def alice(db: None) -> User:
    return make_user("alice")


@pytest.fixture
def workspace(alice: User) -> Workspace:
    return workspace_create(name="Exempel AB", owner=alice)


def upload(workspace: Workspace, user: User, name: str, data: bytes) -> UserFile:
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return user_file_upload(workspace=workspace, user=user,
                            uploaded=SimpleUploadedFile(name, data, content_type=content_type))


def chunks_of(source: UserFile | LegalDocument | Assessment) -> list[ContentChunk]:
    fk = {UserFile: "user_file", LegalDocument: "legal_document", Assessment: "assessment"}[type(source)]
    return list(ContentChunk.objects.filter(**{fk: source}).order_by("path"))


def make_docx_without_title() -> bytes:
    document = docx.Document()
    document.add_heading("1. Syfte", level=1)
    document.add_paragraph("Rutinen säkerställer att tillbud rapporteras och åtgärdas.")
    document.add_heading("2. Ansvar", level=1)
    document.add_paragraph("Närmaste chef ansvarar för utredningen av tillbudet.")
    document.add_heading("3. Uppföljning", level=1)
    document.add_paragraph("Tillbud följs upp på arbetsplatsträffar.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def statute_data(sfs: str, full_text: str | None = None) -> LegalDocumentData:
    record = corpus_record(sfs)
    return LegalDocumentData(sfs_number=sfs, title=record["title"], full_text=full_text or record["text"])


def keyword_hits(query: str, workspace: Workspace, user: User) -> list:
    return retrieve_context(query, workspace, user=user,
                            options=RetrievalOptions(mode="keyword", top_k=50, rerank=False)).chunks


# --------------------------------------------------------------------------- files


@pytest.mark.django_db
def test_pdf_becomes_one_chunk_per_page_and_is_embedded(workspace: Workspace, alice: User) -> None:
    user_file = upload(workspace, alice, "Arbetsmiljöpolicy.pdf", make_pdf(PDF_PAGES))
    assert user_file.status == ProcessingStatus.PENDING

    result = chunk_document(SourceType.USER_FILE, user_file.pk)

    assert not result.failed and not result.skipped
    chunks = chunks_of(user_file)
    assert [(c.page, c.header, c.citation) for c in chunks] == [
        (1, "Arbetsmiljöpolicy.pdf > Sida 1", "Sida 1"),
        (2, "Arbetsmiljöpolicy.pdf > Sida 2", "Sida 2"),
        (3, "Arbetsmiljöpolicy.pdf > Sida 3", "Sida 3"),
    ]
    assert "Skyddsombudet får ta del av riskbedömningar" in chunks[2].text
    assert all(c.workspace_id == workspace.pk and c.document_title == "Arbetsmiljöpolicy.pdf" for c in chunks)
    assert all(c.embedding is None for c in chunks)
    user_file.refresh_from_db()
    assert user_file.page_count == 3
    assert user_file.status == ProcessingStatus.PROCESSING  # chunked, not yet embedded
    assert (user_file.chunks_total, user_file.chunks_embedded) == (3, 0)
    assert sorted(result.to_embed) == [c.pk for c in chunks]

    assert embed_chunk_batch(result.to_embed) == 3
    assert embed_chunk_batch(result.to_embed) == 0  # idempotent: a redelivered batch embeds nothing

    user_file.refresh_from_db()
    assert user_file.status == ProcessingStatus.DONE
    assert (user_file.chunks_total, user_file.chunks_embedded) == (3, 3)
    assert user_file.processed_at is not None
    for chunk in chunks_of(user_file):
        assert chunk.embedding_model == active_model_name()
        assert np.linalg.norm(chunk.embedding) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.django_db
def test_docx_chunks_carry_file_name_and_heading(workspace: Workspace, alice: User) -> None:
    user_file = upload(workspace, alice, "Rutin för tillbud.docx", make_docx_without_title())

    result = chunk_document(SourceType.USER_FILE, user_file.pk)

    assert not result.failed
    assert [(c.header, c.citation, c.text) for c in chunks_of(user_file)] == [
        ("Rutin för tillbud.docx > 1. Syfte", "1. Syfte",
         "Rutinen säkerställer att tillbud rapporteras och åtgärdas."),
        ("Rutin för tillbud.docx > 2. Ansvar", "2. Ansvar", "Närmaste chef ansvarar för utredningen av tillbudet."),
        ("Rutin för tillbud.docx > 3. Uppföljning", "3. Uppföljning", "Tillbud följs upp på arbetsplatsträffar."),
    ]
    user_file.refresh_from_db()
    assert user_file.page_count is None


@pytest.mark.django_db
@pytest.mark.parametrize("name, data, expected", [
    ("brandskydd.txt", "Rutin för brandskydd\n\nÅrlig övning sker i maj.".encode("cp1252"),
     [("brandskydd.txt", "Rutin för brandskydd\n\nÅrlig övning sker i maj.")]),
    ("policy.md", b"# Dataskyddspolicy\n\n## Personuppgifter\n\nUppgifter gallras efter tv\xc3\xa5 \xc3\xa5r.\n",
     [("policy.md > Dataskyddspolicy > Personuppgifter", "Uppgifter gallras efter två år.")]),
    ("visselblasning.html",
     "<html><body><h1>Visselblåsarpolicy</h1><h2>Så gör du</h2><p>Skriv till oss.</p>"
     "<script>alert('x')</script></body></html>".encode(),
     [("visselblasning.html > Visselblåsarpolicy > Så gör du", "Skriv till oss.")]),
])
def test_text_formats_become_chunks(workspace: Workspace, alice: User, name: str, data: bytes,
                                    expected: list[tuple[str, str]]) -> None:
    user_file = upload(workspace, alice, name, data)

    result = chunk_document(SourceType.USER_FILE, user_file.pk)

    assert not result.failed
    assert [(c.header, c.text) for c in chunks_of(user_file)] == expected
    user_file.refresh_from_db()
    assert user_file.chunks_total == len(expected)
    assert user_file.error_message == ""


def _zip_bomb() -> bytes:
    bomb = make_zip({
        "[Content_Types].xml": b"<Types/>",
        "word/document.xml": b"<w:document>" + b" " * (30 * 1024 * 1024) + b"</w:document>",
    })
    assert len(bomb) < 200_000
    return bomb


BAD_FILES = [
    ("bild.png", lambda: b"\x89PNG\r\n\x1a\n" + bytes(200),
     "Filtypen stöds inte. Ladda upp PDF, DOCX, TXT, Markdown eller HTML."),
    ("trasig.pdf", lambda: b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF",
     "PDF-filen är skadad och kunde inte läsas."),
    ("skyddad.pdf", make_encrypted_pdf,
     "PDF-filen är lösenordsskyddad och kan inte läsas. Ta bort lösenordsskyddet och ladda upp den igen."),
    ("rutin.docx", lambda: "Detta är inget Word-dokument alls, bara text.".encode("cp1252"),
     "Filen är inte ett giltigt Word-dokument (DOCX) och kunde inte läsas."),
    ("bomb.docx", _zip_bomb,
     "Word-dokumentet packas upp till mer än tillåtet (200 MB) eller är misstänkt hårt komprimerat, "
     "och kan därför inte läsas."),
]


@pytest.mark.django_db
@pytest.mark.parametrize("name, build, message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_fails_with_swedish_message_and_is_kept(workspace: Workspace, alice: User, name: str,
                                                         build: Callable[[], bytes], message: str) -> None:
    data = build()
    user_file = upload(workspace, alice, name, data)  # accepted: only emptiness and size are checked here

    result = chunk_document(SourceType.USER_FILE, user_file.pk)

    assert result.failed and not result.to_embed
    user_file.refresh_from_db()
    assert user_file.status == ProcessingStatus.FAILED
    assert user_file.error_message == message
    assert user_file.processed_at is not None
    assert chunks_of(user_file) == []
    # Nothing a user uploaded is lost: the stored file is still there, byte for byte.
    assert os.path.exists(user_file.file.path)
    with user_file.file.open("rb") as fh:
        assert fh.read() == data


@pytest.mark.django_db
def test_empty_file_is_refused_at_upload(workspace: Workspace, alice: User) -> None:
    with pytest.raises(UploadError) as caught:
        upload(workspace, alice, "tom.txt", b"")
    assert caught.value.code == "empty"
    assert caught.value.message == "Filen är tom."
    assert not UserFile.objects.exists()


@pytest.mark.django_db
def test_too_large_file_is_refused_at_upload(workspace: Workspace, alice: User, settings: Settings) -> None:
    settings.MAX_UPLOAD_BYTES = 1024 * 1024
    with pytest.raises(UploadError) as caught:
        upload(workspace, alice, "stor.txt", b"a" * (1024 * 1024 + 1))
    assert caught.value.code == "too_large"
    assert caught.value.message == "Filen är för stor (1.0 MB). Största tillåtna storlek är 1 MB."
    assert not UserFile.objects.exists()
    # One byte less is accepted.
    assert upload(workspace, alice, "lagom.txt", b"a" * (1024 * 1024)).pk


@pytest.mark.django_db
def test_failed_file_does_not_block_the_next(workspace: Workspace, alice: User) -> None:
    bad = upload(workspace, alice, "trasig.pdf", b"%PDF-1.4 not really")
    good = upload(workspace, alice, "rutin.md", "# Rutin\n\nChefen ansvarar för rutinen.".encode())

    assert chunk_document(SourceType.USER_FILE, bad.pk).failed
    result = chunk_document(SourceType.USER_FILE, good.pk)

    assert not result.failed
    bad.refresh_from_db()
    good.refresh_from_db()
    assert bad.status == ProcessingStatus.FAILED
    assert good.status == ProcessingStatus.PROCESSING and good.error_message == ""
    assert [c.header for c in chunks_of(good)] == ["rutin.md > Rutin"]


@pytest.mark.django_db
def test_soft_deleted_file_keeps_row_and_file_and_leaves_retrieval(workspace: Workspace, alice: User) -> None:
    user_file = upload(workspace, alice, "brandskydd.txt", "Utrymningsvägarna kontrolleras varje månad.".encode())
    chunk_document(SourceType.USER_FILE, user_file.pk)
    assert [c.source_id for c in keyword_hits("utrymningsvägarna", workspace, alice)] == [user_file.pk]
    version = workspace.knowledge_version

    user_file_delete(user_file)

    row = UserFile.objects.get(pk=user_file.pk)
    assert row.deleted_at is not None
    assert os.path.exists(row.file.path)
    assert len(chunks_of(row)) == 1  # kept, only hidden
    assert keyword_hits("utrymningsvägarna", workspace, alice) == []
    workspace.refresh_from_db()
    assert workspace.knowledge_version > version  # cached retrievals are invalidated


# --------------------------------------------------------------------------- statutes


@pytest.mark.django_db
def test_unchanged_statute_is_skipped() -> None:
    (doc,) = load_statutes(SMALL_SFS)
    assert doc.status == ProcessingStatus.DONE
    ids = [c.pk for c in chunks_of(doc)]
    assert ids

    result = chunk_document(SourceType.LEGAL_DOCUMENT, doc.pk)

    assert result.skipped and result.chunks == 0 and not result.to_embed
    assert [c.pk for c in chunks_of(doc)] == ids
    # Loading the same text again changes nothing either.
    changed = legal_document_upsert(statute_data(SMALL_SFS), process=False).changed
    assert changed is False
    doc.refresh_from_db()
    assert doc.status == ProcessingStatus.DONE


@pytest.mark.django_db
def test_changed_statute_is_replaced_whole_and_unchanged_chunks_keep_their_vectors() -> None:
    (doc,) = load_statutes(SMALL_SFS)
    before = chunks_of(doc)
    vectors = {c.content_hash: np.asarray(c.embedding) for c in before}
    assert all(v is not None for v in vectors.values())
    target = before[len(before) // 2]
    full_text = corpus_record(SMALL_SFS)["text"]
    assert full_text.count(target.text) == 1
    changed_text = full_text.replace(target.text, target.text + " Denna mening har lagts till.")

    changed = legal_document_upsert(statute_data(SMALL_SFS, changed_text), process=False).changed
    assert changed
    result = chunk_document(SourceType.LEGAL_DOCUMENT, doc.pk)

    after = chunks_of(doc)
    assert len(after) == len(before) == result.chunks
    assert not {c.pk for c in after} & {c.pk for c in before}  # replaced whole, not patched
    assert [c.path for c in after] == [c.path for c in before]
    new = [c for c in after if c.content_hash not in vectors]
    assert [c.path for c in new] == [target.path]
    assert "Denna mening har lagts till." in new[0].text
    assert new[0].embedding is None
    assert result.to_embed == [new[0].pk]
    assert result.reused_embeddings == len(before) - 1
    for chunk in after:
        if chunk.content_hash in vectors:
            assert chunk.embedding_model == active_model_name()
            assert np.array_equal(np.asarray(chunk.embedding), vectors[chunk.content_hash])
    doc.refresh_from_db()
    assert doc.status == ProcessingStatus.PROCESSING
    assert (doc.chunks_total, doc.chunks_embedded) == (len(before), len(before) - 1)

    assert embed_chunk_batch(result.to_embed) == 1  # only the changed section needs the model

    doc.refresh_from_db()
    assert doc.status == ProcessingStatus.DONE
    assert doc.chunks_embedded == doc.chunks_total == len(before)


@pytest.mark.django_db
def test_keyword_search_works_before_any_embedding(workspace: Workspace, alice: User, settings: Settings,
                                                   tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "no-shipped-vectors.npz")  # nothing embedded, not even shipped
    doc = legal_document_upsert(statute_data("1982:80"), process=False).document
    result = chunk_document(SourceType.LEGAL_DOCUMENT, doc.pk)
    assert result.chunks > 50
    assert not ContentChunk.objects.filter(legal_document=doc, embedding__isnull=False).exists()

    found = ContentChunk.objects.filter(legal_document=doc,
                                        search_vector=SearchQuery("arbetsgivaren", config="swedish"))
    assert found.count() > 10
    hits = keyword_hits("Hur lång är uppsägningstiden när arbetsgivaren säger upp?", workspace, alice)
    assert hits and all(h.document_number == "1982:80" for h in hits)
    assert any("uppsägningstid" in h.text for h in hits[:5])


# --------------------------------------------------------------------------- assessments


@pytest.mark.django_db
def test_assessment_becomes_a_chunk_with_its_statute_reference(workspace: Workspace, alice: User) -> None:
    doc = legal_document_upsert(statute_data("1982:80"), process=False).document
    assessment = assessment_save(
        workspace=workspace, user=alice, title="Skriftlig uppsägning", legal_document=doc, section_ref="8 §",
        compliance_status=Assessment.Status.PARTIAL, notes="Mallen saknar besked om hur man begär överläggning.",
    )

    result = chunk_document(SourceType.ASSESSMENT, assessment.pk)

    assert not result.failed
    (chunk,) = chunks_of(assessment)
    assert chunk.header == "Bedömning: Skriftlig uppsägning > Lag (1982:80) om anställningsskydd 8 §"
    assert chunk.document_number == "1982:80"
    assert chunk.workspace_id == workspace.pk
    assert "Status: delvis uppfyllt" in chunk.text
    assert "Mallen saknar besked" in chunk.text
    # Saving it unchanged and chunking again is a no-op once embedded.
    assert embed_chunk_batch(result.to_embed) == 1
    assert chunk_document(SourceType.ASSESSMENT, assessment.pk).skipped


# --------------------------------------------------------------------------- through the worker


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_uploads_are_processed_by_the_worker_and_a_bad_one_blocks_nothing(celery_worker: Worker,
                                                                          worker_factory: WorkerFactory,
                                                                          settings: Settings) -> None:
    settings.MEDIA_ROOT = worker_factory.media_root  # the worker reads the files the test stores
    alice = make_user("alice")
    workspace = workspace_create(name="Exempel AB", owner=alice)

    bad = upload(workspace, alice, "skyddad.pdf", make_encrypted_pdf())
    good = upload(workspace, alice, "Rutin för tillbud.docx", make_docx_without_title())

    def settled() -> bool:
        statuses = dict(UserFile.objects.filter(pk__in=[bad.pk, good.pk]).values_list("pk", "status"))
        return statuses == {bad.pk: ProcessingStatus.FAILED, good.pk: ProcessingStatus.DONE}

    wait_for(settled, timeout=300, interval=0.25, what="the worker to process both uploads")

    bad.refresh_from_db()
    good.refresh_from_db()
    assert bad.error_message.startswith("PDF-filen är lösenordsskyddad")
    assert os.path.exists(bad.file.path)
    assert chunks_of(bad) == []
    chunks = chunks_of(good)
    assert [c.header for c in chunks] == ["Rutin för tillbud.docx > 1. Syfte", "Rutin för tillbud.docx > 2. Ansvar",
                                          "Rutin för tillbud.docx > 3. Uppföljning"]
    assert all(c.embedding is not None and c.embedding_model == active_model_name() for c in chunks)
    assert good.chunks_total == good.chunks_embedded == 3
    assert good.error_message == ""
