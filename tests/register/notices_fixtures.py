"""Workspaces, registers and real statutes for the lagbevakning tests.

Plan- och bygglagen (2010:900) as the bundled corpus holds it (2024, t.o.m. SFS 2024:24) and its official
2026 record (t.o.m. SFS 2025:1079) from data/sfs: the real amendment, 211 changed units (210 §§, and the
original transitional provisions, two of whose items 2025:974 repealed)."""

from __future__ import annotations

import gzip
import io
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command

from compliance.models import LegalDocument, Membership, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from law.models import StatuteVersion
from register.models import LegalRegister, RegisterItem, Requirement
from tests.helpers import make_user
from tests.law.sfs_records_fixtures import write_records

PBL = "2010:900"
DATA = Path(settings.BASE_DIR) / "data" / "sfs"


@cache
def corpus_record(sfs: str) -> dict:
    with gzip.open(DATA / "sfs.jsonl.gz", "rt", encoding="utf-8") as fh:
        return next(json.loads(line) for line in fh if f'"sfs": "{sfs}"' in line or f'"sfs":"{sfs}"' in line)


@cache
def official_record(sfs: str) -> dict:
    with gzip.open(DATA / "rkrattsbaser-2026.jsonl.gz", "rt", encoding="utf-8") as fh:
        return next(json.loads(line) for line in fh if json.loads(line)["beteckning"] == sfs)


def load_corpus_statute(sfs: str) -> LegalDocument:
    """A statute as `load_sfs` leaves it (its 2024 text and category), without chunking it."""
    rec = corpus_record(sfs)
    doc = legal_document_upsert(LegalDocumentData(
        sfs_number=rec["sfs"], title=rec["title"], full_text=rec["text"], category=rec["category"] or "",
        amended_through=rec["amended_through"] or "", source=rec["source"]), process=False).document
    return doc


def statute_with_text(number: str, title: str, text: str, *, amended_through: str = "") -> LegalDocument:
    """A statute of our own with this text, as the loader leaves it, not chunked."""
    return legal_document_upsert(LegalDocumentData(sfs_number=number, title=title, full_text=text,
                                                   amended_through=amended_through), process=False).document


def statute_with_new_version(number: str) -> tuple[LegalDocument, StatuteVersion]:
    """A statute of our own with a version from a record, for a notice made by hand (a law the laglista leaves out,
    a suggestion)."""
    doc = legal_document_upsert(LegalDocumentData(sfs_number=number, title=f"Lag ({number}) om prov",
                                                  full_text="1 § Prov."), process=False).document
    return doc, StatuteVersion.objects.create(document=doc, amended_through="SFS 2099:40", full_text="1 § Prov.",
                                              content_hash=doc.content_hash, is_current=True,
                                              origin=StatuteVersion.Origin.FILE)


def workspace_with(name: str, *, owner_name: str,
                   documents: list[LegalDocument]) -> tuple[Workspace, User, list[RegisterItem]]:
    owner = make_user(owner_name)
    ws = Workspace.objects.create(name=name, slug=name.lower().replace(" ", "-"))
    Membership.objects.create(user=owner, workspace=ws, role=Membership.Role.OWNER)
    register = LegalRegister.objects.create(workspace=ws, name="Laglista")
    items = [RegisterItem.objects.create(register=register, workspace=ws, legal_document=doc) for doc in documents]
    return ws, owner, items


def add_requirement(item: RegisterItem, section_ref: str, title: str = "Krav") -> Requirement:
    return Requirement.objects.create(item=item, workspace=item.workspace, title=title, section_ref=section_ref)


def member(ws: Workspace, username: str, role: str) -> User:
    user = make_user(username)
    Membership.objects.create(user=user, workspace=ws, role=role)
    return user


def sync_file(path: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("sync_sfs", "--file", str(path), "--no-progress", stdout=out, stderr=err)
    assert err.getvalue() == "", err.getvalue()
    return out.getvalue()


def sync_records(tmp_path: Path, records: list[dict], name: str = "records.jsonl") -> str:
    return sync_file(write_records(tmp_path / name, records))
