"""What an export of the register or a review holds, read by register.selectors and written to bytes by
register.exports. Plain values only: every label is already what the reader may see."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class RequirementRow:
    section_ref: str
    title: str
    status: str
    owner: str
    needs_evidence: bool
    evidence: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ItemRow:
    id: int
    group: str
    title: str
    number: str
    kind: str
    status: str
    status_label: str
    responsible: str
    last_reviewed_at: date | None
    last_reviewed_by: str
    next_review_date: date | None
    reason: str
    how_we_comply: str
    requirements: list[RequirementRow] = field(default_factory=list)

    @property
    def evidence(self) -> list[str]:
        return [label for requirement in self.requirements for label in requirement.evidence]


@dataclass(frozen=True)
class RegisterExport:
    workspace: str
    register: str
    printed: date
    items: list[ItemRow]
    # Status label → count, in ComplianceStatus order.
    summary: dict[str, int]


@dataclass(frozen=True)
class EntryRow:
    title: str
    number: str
    kind: str
    version: str
    rating_label: str
    justification: str
    assessor: str
    assessed_at: date | None
    requirements: list[RequirementRow]
    evidence: list[str]


@dataclass(frozen=True)
class ReviewExport:
    workspace: str
    register: str
    title: str
    lead: str
    groups: list[str]
    as_of: date | None
    closed_by: str
    printed: date
    entries: list[EntryRow]
    summary: dict[str, int]
    actions: list[str]
