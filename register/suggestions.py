"""What Lagrum suggests for a workspace's laglista, and the curated templates.

Two sources, both offline:
* rules written as data (data/register/rules.toml): a condition on the company profile → a document and
  its Swedish reason. Reviewable in one place; a rule whose document is not loaded is skipped.
* the workspace's own knowledge base and profile facts: the legal documents their text names, by number
  ("1977:1160", "AFS 2023:1", "(EU) 2016/679") or by a document's short name or abbreviation
  ("arbetsmiljölagen", "GDPR"). Only chunks the AI may read are scanned (chunks.selectors.chunk_list_visible:
  no private or deleted file), so a reason never names a file some member may not see.

Documents already on one of the workspace's registers, and documents a person accepted or rejected before,
are not suggested again. Writes (accept, reject, apply a template) are in register.services.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, QuerySet

from chunks.selectors import chunk_list_visible
from compliance.models import LegalDocument, Workspace, WorkspaceProfile
from compliance.numbers import is_document_number
from compliance.selectors import profile_fact_list, workspace_profile_get
from compliance.sql import dict_cursor

from .models import RegisterItem, SuggestionDecision

RULES_PATH = Path(settings.BASE_DIR) / "data" / "register" / "rules.toml"
TEMPLATES_DIR = Path(settings.BASE_DIR) / "data" / "register" / "templates"
# The conditions a rule may state; anything else in a rule is a mistake in the data file.
CONDITIONS = ("min_employees", "max_employees", "collective_agreement", "sector", "sensitive_data", "sni",
              "industry")
RULE_KEYS = ("id", "document", "group", "reason", *CONDITIONS)
KNOWLEDGE_GROUP = "Från kunskapsbasen"
# How many of the workspace's chunks the knowledge-base scan reads: enough for a real handbook library,
# bounded so the page stays fast for a very large one.
MAX_SCANNED_CHUNKS = 5000
MIN_NAME_LENGTH = 3
# A cached scan is keyed on the versions that change with the knowledge base; the timeout only bounds memory.
KNOWLEDGE_CACHE_SECONDS = 24 * 3600


class SuggestionDataError(ValueError):
    """The rules or a template file is malformed: a developer's mistake, caught by the tests."""


@dataclass(frozen=True)
class Rule:
    id: str
    document: str
    group: str
    reason: str
    conditions: tuple[tuple[str, object], ...]


@dataclass
class Suggestion:
    document: LegalDocument
    group: str
    reasons: list[str] = field(default_factory=list)
    from_profile: bool = False
    from_knowledge: bool = False

    @property
    def number(self) -> str:
        return self.document.sfs_number

    @property
    def reason_text(self) -> str:
        return "\n".join(self.reasons)


@lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    return load_rules(RULES_PATH)


def load_rules(path: Path) -> tuple[Rule, ...]:
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    out: list[Rule] = []
    seen: set[str] = set()
    for raw in data.get("rule", []):
        unknown = set(raw) - set(RULE_KEYS)
        missing = {"id", "document", "group", "reason"} - set(raw)
        if unknown or missing:
            raise SuggestionDataError(f"rule {raw.get('id')!r}: unknown {sorted(unknown)}, missing {sorted(missing)}")
        if raw["id"] in seen:
            raise SuggestionDataError(f"rule {raw['id']!r} appears twice")
        if not is_document_number(raw["document"]):
            raise SuggestionDataError(f"rule {raw['id']!r}: {raw['document']!r} is not a document number")
        seen.add(raw["id"])
        conditions = tuple((name, raw[name]) for name in CONDITIONS if name in raw)
        out.append(Rule(id=raw["id"], document=raw["document"], group=raw["group"], reason=raw["reason"],
                        conditions=conditions))
    return tuple(out)


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value or "")


def rule_matches(rule: Rule, profile: WorkspaceProfile) -> bool:
    """Every condition holds. A condition on a field the profile leaves empty does not hold."""
    conditions = dict(rule.conditions)
    employees = profile.employee_count
    if "min_employees" in conditions and (employees is None or employees < conditions["min_employees"]):
        return False
    if "max_employees" in conditions and (employees is None or employees > conditions["max_employees"]):
        return False
    if "collective_agreement" in conditions and profile.has_collective_agreement is not conditions[
            "collective_agreement"]:
        return False
    if "sector" in conditions and profile.sector != conditions["sector"]:
        return False
    if "sensitive_data" in conditions and profile.processes_sensitive_data is not conditions["sensitive_data"]:
        return False
    if "sni" in conditions or "industry" in conditions:
        sni = _digits(profile.sni_code)
        industry = (profile.industry or "").casefold()
        by_sni = bool(sni) and any(sni.startswith(prefix) for prefix in conditions.get("sni", ()))
        by_industry = bool(industry) and any(word.casefold() in industry for word in conditions.get("industry", ()))
        if not (by_sni or by_industry):
            return False
    return True


def _decided_or_listed(workspace: Workspace) -> set[int]:
    listed = set(RegisterItem.objects.filter(workspace=workspace, legal_document__isnull=False)
                 .values_list("legal_document_id", flat=True))
    decided = set(SuggestionDecision.objects.filter(workspace=workspace).values_list("legal_document_id", flat=True))
    return listed | decided


def profile_suggestions(profile: WorkspaceProfile) -> list[Suggestion]:
    """The rules that hold for the profile, one suggestion per loaded document, in the rules' order."""
    matched = [rule for rule in rules() if rule_matches(rule, profile)]
    documents = {d.sfs_number: d for d in LegalDocument.objects.filter(sfs_number__in={r.document for r in matched})}
    by_number: dict[str, Suggestion] = {}
    for rule in matched:
        document = documents.get(rule.document)
        if document is None:  # not loaded in this installation: nothing to put on a list
            continue
        suggestion = by_number.setdefault(rule.document, Suggestion(document=document, group=rule.group,
                                                                    from_profile=True))
        suggestion.reasons.append(rule.reason)
    return list(by_number.values())


# The profile fields the rules read (rule_matches): a change of any other field suggests nothing new.
PROFILE_RULE_FIELDS = ("employee_count", "industry", "sni_code", "has_collective_agreement", "sector",
                       "processes_sensitive_data")
# One round trip: the profile's rule fields, the documents a person has decided on (a suggestion accepted or
# rejected, the assistant's offer declined) or put on a laglista as "ej tillämplig", and the ids of the loaded
# documents the rules name.
_PROFILE_PRIOR_SQL = f"""
    SELECT p.id IS NOT NULL AS has_profile, {", ".join(f"p.{name}" for name in PROFILE_RULE_FIELDS)},
           ARRAY(SELECT sd.legal_document_id FROM register_suggestiondecision sd WHERE sd.workspace_id = %(ws)s
                 UNION SELECT ri.legal_document_id FROM register_registeritem ri
                 WHERE ri.workspace_id = %(ws)s AND ri.legal_document_id IS NOT NULL
                 AND ri.status = 'not_applicable') AS decided,
           (SELECT json_object_agg(ld.sfs_number, ld.id) FROM compliance_legaldocument ld
            WHERE ld.sfs_number = ANY(%(numbers)s)) AS loaded
    FROM (SELECT 1) AS one LEFT JOIN compliance_workspaceprofile p ON p.workspace_id = %(ws)s"""


@lru_cache(maxsize=1)
def _rule_documents() -> list[str]:
    """Every document number a rule names: the documents whose ids profile_prior_documents reads."""
    return sorted({rule.document for rule in rules()})


@lru_cache(maxsize=1024)
def _numbers_suggested(fields: tuple[object, ...]) -> frozenset[str]:
    """The document numbers the rules suggest for a profile with these PROFILE_RULE_FIELDS values: read on every
    question, and a profile's values change seldom."""
    profile = WorkspaceProfile(**dict(zip(PROFILE_RULE_FIELDS, fields, strict=True)))
    return frozenset(rule.document for rule in rules() if rule_matches(rule, profile))


def profile_prior_documents(workspace_id: int) -> tuple[int, ...]:
    """The documents the workspace's company profile suggests that nobody has decided on yet: what the register
    prior weighs beside the laglista, and in its place while it holds no document (agent.retrieval.hybrid,
    docs/retrieval.md "The company profile weighs the sources"). A suggestion accepted is on the laglista, one
    rejected or marked "ej tillämplig" does not apply, and one accepted and later removed from the list was taken
    off on purpose: a decided document is weighed by the laglista alone, as it is no longer suggested.

    Every change a person makes to what this returns (the profile, a decision, the laglista) bumps the workspace's
    knowledge_version (register migrations 0010 and 0011), so no cached answer outlives it."""
    with dict_cursor() as cursor:
        cursor.execute(_PROFILE_PRIOR_SQL, {"ws": workspace_id, "numbers": _rule_documents()})
        row = cursor.fetchone()
    if not row["has_profile"]:
        return ()
    numbers = _numbers_suggested(tuple(row[name] for name in PROFILE_RULE_FIELDS))
    loaded, decided = row["loaded"] or {}, set(row["decided"])
    return tuple(sorted(loaded[n] for n in numbers if n in loaded and loaded[n] not in decided))


# A word of running text, numbers included: "1977:1160", "2016/679", "ELSÄK-FS" are one word each.
_WORD_RE = re.compile(r"\w+(?:[:/\-]\w+)*")


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


@dataclass(frozen=True)
class _Names:
    """Every loaded document's number, short names and abbreviations, as word sequences.

    Matching is by whole words (a dictionary lookup per word, and per phrase starting at a word that begins
    some name), not one regular expression of a thousand alternatives: the knowledge base of a real
    organisation is megabytes of text, and this reads it in well under a second."""

    by_key: dict[tuple[str, ...], int]
    lengths_by_first: dict[str, tuple[int, ...]]


def _document_names() -> _Names:
    by_key: dict[tuple[str, ...], int] = {}
    for pk, number, short_names, abbreviations in LegalDocument.objects.values_list(
            "pk", "sfs_number", "short_names", "abbreviations"):
        for name in [number, *(short_names or []), *(abbreviations or [])]:
            # A name shorter than this ("LAS" is fine, "AB" is not) matches too much ordinary text.
            key = tuple(_words(name))
            if key and (len(name) >= MIN_NAME_LENGTH or name == number):
                by_key.setdefault(key, pk)
    lengths: dict[str, set[int]] = {}
    for key in by_key:
        lengths.setdefault(key[0], set()).add(len(key))
    return _Names(by_key, {first: tuple(sorted(n, reverse=True)) for first, n in lengths.items()})


def _mentions(words: list[str], names: _Names) -> Iterator[int]:
    for i, word in enumerate(words):
        for n in names.lengths_by_first.get(word, ()):
            doc_id = names.by_key.get(tuple(words[i:i + n]))
            if doc_id is not None:
                yield doc_id
                break


def documents_named(text: str) -> list[int]:
    """The loaded legal documents `text` names by number, short name or abbreviation, in order of mention."""
    names = _document_names()
    return list(dict.fromkeys(_mentions(_words(text), names)))


def knowledge_suggestions(workspace: Workspace) -> list[Suggestion]:
    """Documents the workspace's own files, assessments and profile facts name, with where they are named.

    The scan is cached under the workspace's knowledge and memory versions (bumped by every change to its
    files, assessments and profile facts) and the corpus's size, so a large knowledge base is read once per
    change, not on every page view and decision."""
    fresh = Workspace.objects.filter(pk=workspace.pk).values_list("knowledge_version", "memory_version").first()
    corpus = LegalDocument.objects.aggregate(n=Count("pk"), last=Max("pk"))
    key = "register-kb-mentions-{}-{}-{}-{}-{}".format(workspace.pk, *(fresh or (0, 0)), corpus["n"], corpus["last"])
    found = cache.get(key)
    if found is None:
        found = _scan_knowledge(workspace)
        cache.set(key, found, KNOWLEDGE_CACHE_SECONDS)
    documents = LegalDocument.objects.in_bulk(list(found))
    out = []
    for doc_id, places in sorted(found.items(), key=lambda kv: -sum(kv[1].values())):
        document = documents.get(doc_id)
        if document is None:
            continue
        shown = sorted(places, key=lambda w: -places[w])[:3]
        where = ", ".join(f"”{w}”" for w in shown) + (f" och {len(places) - 3} till" if len(places) > 3 else "")
        out.append(Suggestion(document=document, group=KNOWLEDGE_GROUP, from_knowledge=True,
                              reasons=[f"Nämns i er kunskapsbas ({where}) → {document.title}."]))
    return out


def _scan_knowledge(workspace: Workspace) -> dict[int, dict[str, int]]:
    names = _document_names()
    found: dict[int, dict[str, int]] = {}  # document id → {where: mentions}
    if not names.by_key:
        return found
    chunks = (chunk_list_visible([workspace.pk]).filter(workspace=workspace)
              .values_list("document_title", "text")[:MAX_SCANNED_CHUNKS])
    texts = [(title or "en fil", text) for title, text in chunks]
    profile = workspace_profile_get(workspace)
    if profile.pk:
        texts += [("företagsprofilen", fact) for fact in profile_fact_list(workspace).values_list("text", flat=True)]
    for where, text in texts:
        for doc_id in _mentions(_words(text), names):
            places = found.setdefault(doc_id, {})
            places[where] = places.get(where, 0) + 1
    return found


def suggestion_list(workspace: Workspace) -> list[Suggestion]:
    """The suggestions to show: from the profile first, then from the knowledge base, each document once,
    none already on a register or decided before."""
    excluded = _decided_or_listed(workspace)
    merged: dict[int, Suggestion] = {}
    profile = workspace_profile_get(workspace)
    for suggestion in [*profile_suggestions(profile), *knowledge_suggestions(workspace)]:
        if suggestion.document.pk in excluded:
            continue
        existing = merged.get(suggestion.document.pk)
        if existing is None:
            merged[suggestion.document.pk] = suggestion
        else:
            existing.reasons.extend(suggestion.reasons)
            existing.from_knowledge = existing.from_knowledge or suggestion.from_knowledge
    return list(merged.values())


def suggestion_get(workspace: Workspace, number: str) -> Suggestion | None:
    """The suggestion for this document as it stands now (None: not suggested, or no longer)."""
    return next((s for s in suggestion_list(workspace) if s.number == number), None)


def rejected_suggestions(workspace: Workspace) -> QuerySet[SuggestionDecision]:
    return (SuggestionDecision.objects.filter(workspace=workspace, decision=SuggestionDecision.Decision.REJECTED)
            .select_related("legal_document", "decided_by"))


# --- Templates ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateRequirement:
    title: str
    section_ref: str = ""
    description: str = ""
    needs_evidence: bool = False


@dataclass(frozen=True)
class TemplateItem:
    document: str
    reason: str
    requirements: tuple[TemplateRequirement, ...] = ()


@dataclass(frozen=True)
class Template:
    slug: str
    name: str
    description: str
    position: int
    items: tuple[TemplateItem, ...]


def load_template(path: Path) -> Template:
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    items = []
    for raw in data.get("item", []):
        if not is_document_number(raw.get("document", "")):
            raise SuggestionDataError(f"{path.name}: {raw.get('document')!r} is not a document number")
        reqs = tuple(TemplateRequirement(title=r["title"], section_ref=r.get("section_ref", ""),
                                         description=r.get("description", ""),
                                         needs_evidence=bool(r.get("needs_evidence", False)))
                     for r in raw.get("requirement", []))
        items.append(TemplateItem(document=raw["document"], reason=raw.get("reason", ""), requirements=reqs))
    return Template(slug=path.stem, name=data["name"], description=data.get("description", ""),
                    position=int(data.get("position", 0)), items=tuple(items))


@lru_cache(maxsize=1)
def template_list() -> tuple[Template, ...]:
    return tuple(sorted((load_template(p) for p in TEMPLATES_DIR.glob("*.toml")), key=lambda t: (t.position, t.name)))


def template_get(slug: str) -> Template | None:
    return next((t for t in template_list() if t.slug == slug), None)
