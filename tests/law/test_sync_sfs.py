"""sync_sfs: versions, not overwrites; idempotence; refusals and bad records reported by name."""

from __future__ import annotations

import io
import json
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from chunks.services import chunk_document
from compliance.models import LegalDocument, Membership, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from law.models import StatuteChange, StatuteRepeal, StatuteVersion
from law.rkrattsbaser import RkrattsbaserClient
from law.selectors import statute_recent_changes
from law.tasks import sync_sfs_daily
from tests.helpers import make_user
from tests.law.sfs_records_fixtures import OLD_TEXT, record, write_records
from tests.law.test_statute_diff import COUNCIL_OLD

pytestmark = pytest.mark.django_db


@pytest.fixture
def statute(clean_queue: None, settings: Settings, tmp_path: Path) -> LegalDocument:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = legal_document_upsert(LegalDocumentData(
        sfs_number="2099:1", title="Lag (2099:1) om provföretag", full_text=OLD_TEXT,
        amended_through="SFS 2099:5", source="test@corpus"), process=False).document
    chunk_document("LEGAL_DOCUMENT", doc.pk)
    # Give every chunk a vector, as the worker would have.
    for chunk in ContentChunk.objects.filter(legal_document=doc):
        chunk.embedding = np.full(settings.EMBEDDING_DIMENSIONS, 0.1, dtype=np.float32)
        chunk.embedding_model = active_model_name()
        chunk.save(update_fields=["embedding", "embedding_model"])
    return doc


def sync(path: Path, *extra: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("sync_sfs", "--file", str(path), "--sync", "--no-progress", *extra, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_newer_version_becomes_current_and_the_old_stays_readable(statute: LegalDocument, tmp_path: Path) -> None:
    unchanged = ContentChunk.objects.filter(legal_document=statute, text__startswith="1 §").first()
    out, err = sync(write_records(tmp_path / "r.jsonl", [record("2099:1")]))

    assert "1 nya versioner" in out and err == ""
    statute.refresh_from_db()
    assert statute.amended_through == "SFS 2099:11" and "digitalt" in statute.full_text
    assert statute.source.startswith("Regeringskansliets rättsdatabaser (SFS)")  # the page no longer says "april 2024"
    versions = list(StatuteVersion.objects.filter(document=statute).order_by("pk"))
    assert [(v.origin, v.is_current) for v in versions] == [("CORPUS", False), ("FILE", True)]
    assert versions[0].full_text == OLD_TEXT and versions[0].valid_to == versions[1].valid_from
    assert versions[1].record_id == "4711" and versions[1].source_name == "r.jsonl"
    kinds = dict(StatuteChange.objects.filter(to_version=versions[1]).values_list("citation", "kind"))
    assert kinds == {"2 §": "AMENDED", "3 §": "REPEALED", "4 a §": "RENUMBERED", "5 §": "ADDED", "6 §": "ADDED"}
    # Re-chunked: the unchanged § kept its vector (by hash), the amended one needs embedding.
    chunks = ContentChunk.objects.filter(legal_document=statute)
    assert chunks.filter(content_hash=unchanged.content_hash).first().embedding is not None
    amended = chunks.filter(text__contains="digitalt")
    assert amended.exists() and all(chunk.embedding is None for chunk in amended)


def test_the_same_file_twice_changes_nothing(statute: LegalDocument, tmp_path: Path) -> None:
    path = write_records(tmp_path / "r.jsonl", [record("2099:1")])
    sync(path)
    chunk_ids = sorted(ContentChunk.objects.values_list("pk", flat=True))
    counts = (StatuteVersion.objects.count(), StatuteChange.objects.count())

    out, _ = sync(path)

    assert "1 oförändrade" in out and "0 nya versioner" in out
    assert (StatuteVersion.objects.count(), StatuteChange.objects.count()) == counts
    assert sorted(ContentChunk.objects.values_list("pk", flat=True)) == chunk_ids


def test_an_older_version_is_refused(statute: LegalDocument, tmp_path: Path) -> None:
    sync(write_records(tmp_path / "new.jsonl", [record("2099:1")]))
    out, err = sync(write_records(tmp_path / "old.jsonl", [record("2099:1", text="1 § Gammalt.",
                                                                  andring="t.o.m. SFS 2099:8")]))
    assert "1 äldre" in out and "SFS 2099:1" in err and "äldre än den inlästa versionen" in err
    statute.refresh_from_db()
    assert statute.amended_through == "SFS 2099:11"
    assert StatuteVersion.objects.filter(document=statute).count() == 2


def corpus_file(path: Path, *, text: str = OLD_TEXT, amended_through: str = "SFS 2099:5") -> Path:
    """A bundled-corpus file (load_sfs's format) holding the fixture statute as the 2024 copy had it."""
    row = {"sfs": "2099:1", "title": "Lag (2099:1) om provföretag", "text": text, "amended_through": amended_through,
           "source": "test@corpus"}
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_loading_the_corpus_again_keeps_the_newer_version(statute: LegalDocument, tmp_path: Path) -> None:
    # `make run` loads the bundled corpus on every start: after a sync, its older text must not come back.
    sync(write_records(tmp_path / "r.jsonl", [record("2099:1")]))
    chunk_ids = sorted(ContentChunk.objects.filter(legal_document=statute).values_list("pk", flat=True))
    out = io.StringIO()

    call_command("load_sfs", "--corpus", str(corpus_file(tmp_path / "korpus.jsonl")), "--all", "--sync",
                 "--no-progress", stdout=out)

    assert out.getvalue().strip() == ("1 författningar lästa, 0 nya eller ändrade, 1 behåller en nyare version "
                                      "från rättsdatabaserna.")
    statute.refresh_from_db()
    assert statute.amended_through == "SFS 2099:11" and "digitalt" in statute.full_text
    assert StatuteVersion.objects.get(document=statute, is_current=True).origin == "FILE"
    assert sorted(ContentChunk.objects.filter(legal_document=statute).values_list("pk", flat=True)) == chunk_ids
    # The same andringInford in other words is a corrected consolidation: the record's is kept over the copy's too.
    out = io.StringIO()
    call_command("load_sfs", "--corpus", str(corpus_file(tmp_path / "samma.jsonl", amended_through="SFS 2099:11")),
                 "--all", "--sync", "--no-progress", "--json", stdout=out)
    assert json.loads(out.getvalue())["kept_newer"] == 1
    statute.refresh_from_db()
    assert "digitalt" in statute.full_text


def test_loading_the_corpus_replaces_its_own_older_copy(statute: LegalDocument, tmp_path: Path) -> None:
    # Without a version from a record, the corpus is the source: a corrected copy of it loads as before.
    out = io.StringIO()
    call_command("load_sfs", "--corpus", str(corpus_file(tmp_path / "korpus.jsonl", text=OLD_TEXT + " Rättad.")),
                 "--all", "--sync", "--no-progress", stdout=out)

    assert out.getvalue().strip() == "1 författningar lästa, 1 nya eller ändrade."
    statute.refresh_from_db()
    assert statute.full_text.endswith("Rättad.")


def test_the_kunskapsbas_page_says_which_law_the_knowledge_base_holds(statute: LegalDocument, settings: Settings,
                                                                      client: Client, tmp_path: Path) -> None:
    settings.SFS_CORPUS_SNAPSHOT = date(2099, 1, 1)
    legal_document_upsert(LegalDocumentData(sfs_number="2099:2", title="Lag (2099:2) om provtillsyn",
                                            full_text="1 § Tillsyn.", source="test@corpus"), process=False)
    user = make_user("tove")
    ws = Workspace.objects.create(name="Toves AB", slug="toves-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    client.force_login(user)
    status = f"/ws/{ws.slug}/kunskapsbas/status/"

    before = client.get(status).content.decode()
    assert "lagtext: medföljande kopia" in before and "våren 2024" in before

    sync(write_records(tmp_path / "r.jsonl", [
        record("2099:1"), record("2099:3", updated="2100-02-03T08:00:00"),
        record("2099:2", repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")]))

    after = client.get(status).content.decode()
    assert "lagtext enligt rättsdatabaserna" in after and "medföljande kopia" not in after
    assert '<time datetime="2100-02-03">2100-02-03</time>' in after  # the newest record's update day
    assert "sedan våren 2024: 1 ändrade · 1 nya · 1 upphävda" in after


def test_bad_records_are_reported_by_name_and_the_rest_applied(statute: LegalDocument, settings: Settings,
                                                               tmp_path: Path) -> None:
    settings.SFS_CORPUS_SNAPSHOT = date(2099, 1, 1)
    bad_field = record("2099:7", unexpected=1)
    bad_number = record("99-1")
    empty_text = record("2099:8", text="")
    out, err = sync(write_records(tmp_path / "r.jsonl", [
        "{truncated", bad_field, bad_number, empty_text, record("2099:1"), record("2099:3")]))

    assert "rad 1: inte giltig JSON" in err
    assert "rad 2 (SFS 2099:7): okända fält: unexpected" in err
    assert "rad 3 (SFS 99-1): SFS-numret går inte att tolka" in err
    assert "rad 4 (SFS 2099:8): forfattningstext saknas" in err
    assert "4 fel" in out and "1 nya versioner" in out and "1 nya författningar" in out
    assert not LegalDocument.objects.filter(sfs_number__in=["2099:7", "2099:8"]).exists()


def test_a_new_statute_is_created_and_an_old_unloaded_one_skipped(clean_queue: None, settings: Settings,
                                                                  tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.SFS_CORPUS_SNAPSHOT = date(2099, 1, 1)
    out, _ = sync(write_records(tmp_path / "r.jsonl", [
        record("2099:3"), record("1990:3", issued="1990-01-01T00:00:00")]))

    assert "1 nya författningar" in out and "1 inte i korpusen" in out
    doc = LegalDocument.objects.get(sfs_number="2099:3")
    assert doc.amended_through == "SFS 2099:11" and doc.chunks_total > 0
    assert StatuteVersion.objects.get(document=doc).is_current
    assert not LegalDocument.objects.filter(sfs_number="1990:3").exists()


def test_a_repealed_statute_is_marked_leaves_retrieval_and_stays_readable(statute: LegalDocument,
                                                                          tmp_path: Path) -> None:
    path = write_records(tmp_path / "r.jsonl", [record(
        "2099:1", repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")])
    out, _ = sync(path)

    assert "1 upphävda" in out
    repeal = StatuteRepeal.objects.get(document=statute)
    assert repeal.repealed_by == "SFS 2099:99" and str(repeal.repealed_on) == "2100-01-01"
    # Out of ordinary retrieval through its own flag: `retrievable` still tells its sections from its stubs.
    assert not ContentChunk.objects.filter(legal_document=statute, document_repealed=False).exists()
    assert ContentChunk.objects.filter(legal_document=statute, retrievable=True).exists()
    statute.refresh_from_db()
    assert statute.full_text == OLD_TEXT  # still readable
    out, _ = sync(path)
    assert "1 oförändrade" in out and StatuteRepeal.objects.count() == 1


def test_service_client_replays_recorded_responses(statute: LegalDocument, settings: Settings) -> None:
    settings.SFS_SERVICE_ENABLED = True
    recorded = {"https://example.test/sfs/2099:1": json.dumps(record("2099:1")).encode()}
    def replay(url: str) -> bytes:
        if url not in recorded:
            raise OSError("HTTP 404")  # what urllib raises (HTTPError is an OSError)
        return recorded[url]

    client = RkrattsbaserClient("https://example.test/sfs/{sfs}", fetch=replay)
    lines = list(client.records(["2099:1", "2099:2"]))
    assert lines[0].record["beteckning"] == "2099:1" and not lines[0].error
    assert lines[1].error == "kunde inte hämtas (OSError: HTTP 404)" and lines[1].name == "rad 2 (SFS 2099:2)"


def test_service_is_off_by_default(settings: Settings) -> None:
    assert settings.SFS_SERVICE_ENABLED is False
    with pytest.raises(CommandError, match="avstängd"):
        call_command("sync_sfs", "--service", "--no-progress")


def test_statute_page_shows_changes_per_act_as_word_diffs_and_the_old_version(statute: LegalDocument, client: Client,
                                                                              tmp_path: Path) -> None:
    sync(write_records(tmp_path / "r.jsonl", [record("2099:1")]))
    client.force_login(make_user("lasare"))
    page = client.get(reverse("statute", args=["2099:1"])).content.decode()

    assert "<h2>Ändringar</h2>" in page
    assert "SFS 2099:10" in page and "i kraft 2099-07-01" in page
    assert "<ins>ett digitalt </ins>" in page
    assert "tidigare 4 §" in page
    assert "Kommande ändringar: 6 § (2100-07-01)" in page
    assert 'style="' not in page.split('id="andringar"')[1].split("</section>")[0]
    old = StatuteVersion.objects.get(document=statute, is_current=False)
    older = client.get(reverse("statute", args=["2099:1"]) + f"?version={old.pk}").content.decode()
    assert "Så här löd lagen" in older and "Ett företag ska föra register. Lag (2099:5)." in older


def test_a_version_whose_act_the_record_does_not_date_claims_no_day(statute: LegalDocument, client: Client,
                                                                   tmp_path: Path) -> None:
    """The record's text is consolidated through an act its list of amending acts does not hold yet: the version
    has no known first day (not the statute's own day of 2099-01-01 or so), still counts as a recent change, and
    the page says which act without a day."""
    raw = record("2099:1", andring="t.o.m. SFS 2099:12", ikraftDateTime="2099-01-01T00:00:00")
    sync(write_records(tmp_path / "r.jsonl", [raw]))
    old, new = StatuteVersion.objects.filter(document=statute).order_by("pk")
    assert (new.amended_through, new.valid_from, old.valid_to) == ("SFS 2099:12", None, None)
    assert statute.pk in statute_recent_changes([statute.pk], since=date(2099, 6, 1))
    client.force_login(make_user("lasare"))
    page = client.get(reverse("statute", args=["2099:1"])).content.decode()
    assert "Gällande: SFS 2099:12</li>" in " ".join(page.split()).replace(" </li>", "</li>")
    assert "från 2099-01-01" not in page


def test_statute_page_says_a_repealed_statute_is_repealed(statute: LegalDocument, client: Client,
                                                          tmp_path: Path) -> None:
    sync(write_records(tmp_path / "r.jsonl", [record(
        "2099:1", repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")]))
    client.force_login(make_user("lasare"))
    page = client.get(reverse("statute", args=["2099:1"])).content.decode()
    assert "Upphävd genom SFS 2099:99, den 2100-01-01" in page


def test_the_daily_task_runs_the_service_sync(settings: Settings) -> None:
    # Off by default: the task runs the command, which refuses without the service.
    with pytest.raises(CommandError, match="avstängd"):
        sync_sfs_daily()
    assert "sync-sfs" not in settings.CELERY_BEAT_SCHEDULE


def test_a_version_that_changed_only_an_item_of_a_bilagas_list_records_that_change(clean_queue: None,
                                                                                   settings: Settings,
                                                                                   tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    old = COUNCIL_OLD.format(m="–")
    doc = legal_document_upsert(LegalDocumentData(
        sfs_number="2099:7", title="Förordning (2099:7) om ett samordningsråd", full_text=old,
        amended_through="SFS 2099:3", source="test@corpus"), process=False).document
    new = old.replace("- Myndigheten för provberedskap", "- Myndigheten för provförsvar").replace(
        "Provinspektionen. Förordning (2099:3).", "Provinspektionen. Förordning (2099:12).")
    path = write_records(tmp_path / "r.jsonl", [record("2099:7", text=new, andring="t.o.m. SFS 2099:12",
                                                       title="Förordning (2099:7) om ett samordningsråd")])

    out, _ = sync(path)

    assert "1 nya versioner" in out and "; 1 ändrade enheter;" in out
    change = StatuteChange.objects.get(document=doc)
    assert (change.kind, change.citation, change.amending_sfs) == ("AMENDED", "Bilaga", "2099:12")
    assert "provförsvar" in change.new_text and "provberedskap" in change.old_text
