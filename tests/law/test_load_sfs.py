"""The load_sfs command against the bundled corpus (and a small corpus file written here)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from chunks.models import ContentChunk
from compliance.models import LegalDocument, ProcessingStatus
from law.management.commands.load_sfs import Command
from law.sfs_corpus import CORE_SFS, read_corpus
from tests.chunks.conftest import queued_task_calls
from tests.corpus import corpus_record

pytestmark = pytest.mark.django_db


def load_sfs(*args: str) -> str:
    out = io.StringIO()
    call_command("load_sfs", *args, "--no-progress", stdout=out)
    return out.getvalue().strip()


def queued_chunk_ids() -> list[int]:
    return sorted(cid for (ids,), _ in queued_task_calls("chunks.tasks.embed_chunks") for cid in ids)


def test_only_loads_exactly_those_statutes_with_names_and_types(clean_queue: None, settings: Settings, tmp_path: Path,
                                                                django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")  # without shipped vectors (tests/chunks/test_shipped_vectors.py)
    with django_capture_on_commit_callbacks(execute=True):  # vectors are queued once each statute commits
        output = load_sfs("--only", "1977:1160, SFS 1982:80", "--sync")

    assert output == "2 författningar lästa, 2 nya eller ändrade."
    docs = {d.sfs_number: d for d in LegalDocument.objects.all()}
    assert set(docs) == {"1977:1160", "1982:80"}
    aml, las = docs["1977:1160"], docs["1982:80"]
    assert aml.title == "Arbetsmiljölag (1977:1160)"
    assert aml.abbreviations == ["AML"] and "arbetsmiljölagen" in aml.short_names
    assert las.abbreviations == ["LAS"] and "anställningsskyddslagen" in las.short_names
    assert aml.content_type == las.content_type == LegalDocument.ContentType.SFS_LAW
    assert aml.full_text == corpus_record("1977:1160")["text"]
    assert aml.issued is not None and aml.category
    # --sync chunks here; the embedding of every chunk is queued for the worker.
    for doc in (aml, las):
        assert doc.status == ProcessingStatus.PROCESSING
        assert doc.chunked_hash == doc.content_hash
        assert doc.chunks_total == ContentChunk.objects.filter(legal_document=doc).count() > 50
        assert doc.chunks_embedded == 0
    assert queued_chunk_ids() == sorted(ContentChunk.objects.values_list("id", flat=True))


def test_second_run_changes_nothing(clean_queue: None,
                                    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        load_sfs("--only", "1977:1160,1982:80", "--sync")
    ids = sorted(ContentChunk.objects.values_list("id", flat=True))
    versions = dict(LegalDocument.objects.values_list("sfs_number", "updated_at"))
    queued = len(queued_task_calls("chunks.tasks.embed_chunks"))

    with django_capture_on_commit_callbacks(execute=True):
        output = load_sfs("--only", "1977:1160,1982:80", "--sync")

    assert output == "2 författningar lästa, 0 nya eller ändrade."
    assert sorted(ContentChunk.objects.values_list("id", flat=True)) == ids
    assert dict(LegalDocument.objects.values_list("sfs_number", "updated_at")) == versions
    assert len(queued_task_calls("chunks.tasks.embed_chunks")) == queued  # nothing new to embed


def test_a_load_counts_who_cites_whom(clean_queue: None) -> None:
    # Anställningsskyddslagen refers to arbetstvistlagen (1974:371); nothing loaded refers to it.
    load_sfs("--only", "1982:80,1974:371", "--sync")
    assert dict(LegalDocument.objects.values_list("sfs_number", "cited_by")) == {"1974:371": 1, "1982:80": 0}


def test_a_load_finds_whose_own_work_a_statute_governs(clean_queue: None) -> None:
    # Arbetsmiljöverket's instruction governs the authority's work; arbetsmiljölagen binds every employer.
    load_sfs("--only", "2007:913,1977:1160", "--sync")
    assert dict(LegalDocument.objects.values_list("sfs_number", "addressee")) == {
        "2007:913": "Arbetsmiljöverket", "1977:1160": ""}


@pytest.mark.parametrize("only, message", [
    ("1977-1160", "invalid SFS number(s): 1977-1160 (expected e.g. 1977:1160)"),
    ("1977:1160,lagen", "invalid SFS number(s): lagen (expected e.g. 1977:1160)"),
    ("1977:1160,2099:1", "not in the corpus: 2099:1"),
])
def test_bad_only_values_are_refused(only: str, message: str) -> None:
    with pytest.raises(CommandError) as caught:
        load_sfs("--only", only, "--sync")
    assert str(caught.value) == message
    assert not LegalDocument.objects.exists()  # refused before anything was loaded


def test_only_and_all_are_exclusive() -> None:
    with pytest.raises(CommandError, match="not allowed with argument"):
        load_sfs("--only", "1977:1160", "--all")


def test_default_is_the_core_set_and_all_of_it_is_in_the_corpus(settings: Settings) -> None:
    wanted = Command._wanted({"all": False, "only": None})
    assert wanted == set(CORE_SFS) and len(wanted) == 18
    assert {"1977:1160", "1982:80"} <= wanted
    in_corpus = {r["sfs"] for r in read_corpus(settings.SFS_CORPUS_PATH)}
    assert wanted <= in_corpus  # a default run cannot fail with "not in the corpus"
    assert len(in_corpus) > len(wanted)  # and it is a selection, not everything
    assert Command._wanted({"all": True, "only": None}) is None


def test_corpus_option_and_all_load_every_record_of_that_file(tmp_path: Path, clean_queue: None) -> None:
    corpus = tmp_path / "liten.jsonl"
    records = [corpus_record("2018:1277"), corpus_record("1998:901")]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")

    output = load_sfs("--corpus", str(corpus), "--all", "--sync")

    assert output == "2 författningar lästa, 2 nya eller ändrade."
    types = dict(LegalDocument.objects.values_list("sfs_number", "content_type"))
    assert types == {"2018:1277": LegalDocument.ContentType.SFS_LAW,
                     "1998:901": LegalDocument.ContentType.SFS_ORDINANCE}
    assert ContentChunk.objects.filter(document_number="1998:901").exists()
