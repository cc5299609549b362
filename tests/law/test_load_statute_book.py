"""load_sfs --book on a slice of the real statute book (data/sfs/sfs_book.jsonl.gz): every kind, a statute
without text, malformed lines, idempotence, progress; and the kind shown where a statute shows."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from pytest_django import DjangoCaptureOnCommitCallbacks

from chunks.models import ContentChunk
from compliance.models import LegalDocument, Membership, ProcessingStatus, Workspace
from law.selectors import statute_book_progress
from law.services import BookLoadProgress, statute_book_progress_record
from tests.corpus import corpus_record
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

# Small real statutes of each kind of the book (300–1,500 characters each), and one the source has no text for.
SLICE = {
    "1996:1615": LegalDocument.ContentType.SFS_LAW,             # Lag om omräkningstal för 1997 års taxeringsvärde
    "1999:768": LegalDocument.ContentType.SFS_ORDINANCE,        # Förordning om uppräkningsfaktorer …
    "1986:45": LegalDocument.ContentType.SFS_NOTICE,            # Tillkännagivande om Finlands medlemskap i EFTA
    "1934:36": LegalDocument.ContentType.SFS_PROCLAMATION,      # Kungörelse om betesreglering i Uppsala län
    "1899:bih. 40 s. 3": LegalDocument.ContentType.SFS_OTHER,   # Kungl. Maj:ts Resolution (a historical number)
    "1996:1139": LegalDocument.ContentType.SFS_AGENCY_RULES,    # Riksgäldskontorets föreskrifter
    "2006:909": LegalDocument.ContentType.SFS_LAW,              # Lag om skatt på flygresor: no text at the source
}
CURATED = "1998:209"  # nine chunks


def book_records(numbers: Iterable[str]) -> list[dict]:
    wanted = set(numbers)
    with gzip.open(settings.SFS_BOOK_PATH, "rt", encoding="utf-8") as fh:
        found = [json.loads(line) for line in fh if json.loads(line)["sfs"] in wanted]
    assert {r["sfs"] for r in found} == wanted
    return found


@pytest.fixture
def book_files(tmp_path: Path) -> tuple[Path, Path]:
    curated = tmp_path / "kurerad.jsonl"
    curated.write_text(json.dumps(corpus_record(CURATED), ensure_ascii=False) + "\n", encoding="utf-8")
    lines = [json.dumps(r, ensure_ascii=False) for r in book_records(SLICE)]
    lines[2:2] = [
        '{"sfs": "2001:1", "title": "Lag (2001:1) om',                                # cut off mid-record
        json.dumps({"sfs": "2001:2", "text": "1 § Ingen titel."}),                    # no title
        json.dumps({"sfs": "2001-3", "title": "Lag (2001-3)", "text": "1 § Fel."}),   # not an SFS number
        json.dumps({"sfs": "2001:4", "title": "Lag (2001:4)", "text": "1 § Okänd.", "kind": "dekret"}),
    ]
    book = tmp_path / "bok.jsonl.gz"
    with gzip.open(book, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return curated, book


def load_book(curated: Path, book: Path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("load_sfs", "--book", "--corpus", str(curated), "--book-file", str(book), "--sync",
                 "--no-progress", stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


def test_the_book_loads_every_kind_and_reports_each_malformed_line_by_name(book_files: tuple[Path, Path],
                                                                           clean_queue: None,
                                                                           django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        output, errors = load_book(*book_files)

    assert output == "12 författningar lästa, 8 nya eller ändrade, 4 felaktiga."
    assert "Hoppar över bok.jsonl.gz rad 3: ogiltig JSON" in errors
    assert "Hoppar över 2001:2: saknar title" in errors
    assert "Hoppar över 2001-3: sfs_number: Ogiltig beteckning 2001-3" in errors
    assert "Hoppar över 2001:4: okänd typ 'dekret'" in errors
    # Nothing of a refused record is kept; everything else is there, with its kind.
    kinds = dict(LegalDocument.objects.values_list("sfs_number", "content_type"))
    assert kinds == {**SLICE, CURATED: LegalDocument.ContentType.SFS_LAW}
    # Keyword-searchable at once: chunked in this process (the text-less one has nothing to chunk).
    for doc in LegalDocument.objects.exclude(sfs_number="2006:909"):
        assert doc.chunked_hash == doc.content_hash and doc.chunks_total > 0
        assert ContentChunk.objects.filter(legal_document=doc, retrievable=True).exists()
    empty = LegalDocument.objects.get(sfs_number="2006:909")
    assert empty.full_text == "" and empty.status == ProcessingStatus.FAILED
    assert empty.error_message == "Dokumentet innehåller ingen text att söka i."

    progress = statute_book_progress()
    assert (progress.state, progress.total, progress.done, progress.changed, progress.failed) == (
        "done", 12, 12, 8, 4)
    assert progress.eta_seconds is None and progress.percent == 100.0


def test_a_second_run_over_the_book_changes_nothing(book_files: tuple[Path, Path], clean_queue: None,
                                                    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        load_book(*book_files)
    chunk_ids = sorted(ContentChunk.objects.values_list("id", flat=True))
    rows = dict(LegalDocument.objects.values_list("sfs_number", "updated_at"))
    statuses = dict(LegalDocument.objects.values_list("sfs_number", "status"))

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        output, _ = load_book(*book_files)

    assert output == "12 författningar lästa, 0 nya eller ändrade, 4 felaktiga."
    assert sorted(ContentChunk.objects.values_list("id", flat=True)) == chunk_ids
    assert dict(LegalDocument.objects.values_list("sfs_number", "updated_at")) == rows
    assert dict(LegalDocument.objects.values_list("sfs_number", "status")) == statuses
    assert callbacks == []  # nothing queued for embedding


def test_progress_while_loading_has_a_time_left_and_a_stopped_loader_shows_as_interrupted() -> None:
    progress = BookLoadProgress(total=4610, started_at=1_000.0, done=461)
    statute_book_progress_record(progress)
    written = progress.updated_at
    # 461 statutes in (written - 1000) seconds: the other 4,149 take nine times as long.
    status = statute_book_progress(now=written + 1)
    assert (status.state, status.percent) == ("loading", 10.0)
    assert status.eta_seconds == round(4149 * (written - 1000) / 461)
    assert statute_book_progress(now=written + 61).state == "interrupted"


def test_the_kind_shows_as_a_badge_and_filters_the_list(client: Client, book_files: tuple[Path, Path],
                                                        clean_queue: None) -> None:
    load_book(*book_files)
    user = make_user("lisa")
    client.force_login(user)

    page = client.get("/lag/1986:45").content.decode()
    assert '<span class="badge kind-badge">Tillkännagivande</span>' in page

    listed = client.get("/lag/", {"typ": "SFS_PROCLAMATION"}).content.decode()
    assert "Kungörelse (1934:36) om betesreglering i Uppsala län" in listed
    assert '<span class="badge kind-badge">Kungörelse</span>' in listed
    assert "Tillkännagivande (1986:45)" not in listed
    historical = LegalDocument.objects.get(sfs_number="1899:bih. 40 s. 3")
    assert client.get(f"/lag/{historical.slug}").status_code == 200


def test_the_kunskapsbas_page_and_admin_show_the_book_loading_with_the_time_left(client: Client) -> None:
    statute_book_progress_record(BookLoadProgress(total=4610, started_at=0.0, done=2305))
    user = make_user("olle")
    ws = Workspace.objects.create(name="Olles AB", slug="olles-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    client.force_login(user)

    page = client.get(f"/ws/{ws.slug}/kunskapsbas/status/").content.decode()
    assert "författningsboken läses in" in page and "2305 av 4610 författningar" in page
    assert 'hx-trigger="every 2s"' in page  # polled until the book is in
    assert "kvar · sökbara med ord så snart de är inlästa" in page

    admin = get_user_model().objects.create_superuser("admin", "admin@example.se", "pw")
    client.force_login(admin)
    listing = client.get("/admin/compliance/legaldocument/").content.decode()
    assert "Författningsboken läses in: 2305 av 4610 (50 %), cirka" in listing

    statute_book_progress_record(BookLoadProgress(total=4610, started_at=0.0, done=4610, finished_at=1.0))
    client.force_login(user)
    assert "författningsboken" not in client.get(f"/ws/{ws.slug}/kunskapsbas/status/").content.decode()


def test_a_missing_book_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=f"filen finns inte: {tmp_path / 'saknas.jsonl.gz'}"):
        call_command("load_sfs", "--book", "--book-file", str(tmp_path / "saknas.jsonl.gz"), "--no-progress")
    assert not LegalDocument.objects.exists()
