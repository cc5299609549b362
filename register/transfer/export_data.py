"""What an export of the register, a review or lagbevakning's report holds, read by register.selectors (the report by
register.notices.selectors) and written to bytes by register.exports. Plain values only: every label is already
what the reader may see."""

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


@dataclass(frozen=True)
class NoticeRow:
    """One change notice as lagbevakning's report shows it: the change, and the workspace's answer to it."""

    noticed_on: date
    title: str
    number: str
    kind: str
    kind_label: str
    # "ändrad genom SFS 2025:1142, gäller från 2026-01-01", "upphävd genom SFS 2025:1506", "ny författning".
    change: str
    on_register: bool
    changed_units: int
    # "5 enheter (3 ändrade, 1 ny och 1 upphävd)": the units by kind (`notice_units_text`); "" when none.
    units_text: str
    relevant_units: list[str]
    cited_units: list[str]
    # The impact assessment; empty when the notice is not answered.
    affects_us: str
    what_to_do: str
    comment: str
    answered_by: str
    answered_on: date | None
    action: str

    @property
    def answered(self) -> bool:
        return bool(self.affects_us)


@dataclass(frozen=True)
class NoticeReport:
    workspace: str
    since: date | None
    until: date | None
    printed: date
    rows: list[NoticeRow]
    # "Lagändringar", "Besvarade", "Obesvarade", then each answer ("Påverkar oss: ja") → count.
    summary: dict[str, int]

    @property
    def period(self) -> str:
        if self.since and self.until:
            return f"{self.since.isoformat()} – {self.until.isoformat()}"
        if self.since:
            return f"från {self.since.isoformat()}"
        if self.until:
            return f"till och med {self.until.isoformat()}"
        return "alla lagändringar"
