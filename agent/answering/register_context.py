"""What the organisation's laglista says about the legal documents the context block cites.

For each cited document on one of the scope's registers, one line: "Arbetsmiljölag (1977:1160) (källa 1):
uppfylls delvis, ansvarig Anna, bedömd 2026-03-01". The lines go into a separate, delimited section of the
context message ("Er laglista", agent.answering.context_assembly.register_section), and each source card of
such a document carries the same status ("Er laglista: uppfylls delvis, …").

Names and titles are text people typed: the lines are neutralised like the profile's, one line each.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from chunks.tokens import count_tokens
from compliance.text import neutralise
from register.selectors import ItemStatus, register_item_statuses

# Room the section may take in the context message, its title, preamble and delimiters included.
REGISTER_TOKEN_BUDGET = 400


@dataclass
class RegisterStatus:
    lines: list[str] = field(default_factory=list)
    by_document: dict[int, str] = field(default_factory=dict)  # legal document id → the card's status text


def status_text(item: ItemStatus, *, with_register: bool = False) -> str:
    parts = [item.status_label]
    if item.responsible:
        parts.append(f"ansvarig {item.responsible}")
    if item.last_reviewed_at:
        parts.append(f"bedömd {item.last_reviewed_at.isoformat()}")
    else:
        parts.append("inte bedömd än")
    if item.next_review_date:
        parts.append(f"nästa bedömning {item.next_review_date.isoformat()}")
    if item.needs_reassessment:
        parts.append("ändrad – behöver bedömas")
    text = ", ".join(parts)
    return f"{item.register_name}: {text}" if with_register else text


def _clean(text: str) -> str:
    return neutralise(" ".join(text.split()))


def register_status(citations: dict[int, object], workspace_ids: Iterable[int], *,
                    budget: int = REGISTER_TOKEN_BUDGET, encoding: str = "o200k_base") -> RegisterStatus:
    """The register lines for the cited legal documents (`citations`: n → RetrievedChunk), within `budget`."""
    numbers_by_doc: dict[int, list[int]] = {}
    for n, chunk in sorted(citations.items()):
        if getattr(chunk, "source_type", "") == "LEGAL_DOCUMENT":
            numbers_by_doc.setdefault(chunk.source_id, []).append(n)
    status = RegisterStatus()
    if not numbers_by_doc:
        return status
    items = register_item_statuses(workspace_ids, numbers_by_doc)
    several = len({item.register_id for item in items}) > 1
    used = 0
    for item in sorted(items, key=lambda i: (min(numbers_by_doc[i.legal_document_id]), i.register_name, i.item_id)):
        text = status_text(item, with_register=several)
        cited = ", ".join(str(n) for n in numbers_by_doc[item.legal_document_id])
        line = _clean(f"- {item.display_title} (källa {cited}): {text}")
        cost = count_tokens(line + "\n", encoding)
        if used + cost > budget:
            break
        used += cost
        status.lines.append(line)
        card = status.by_document.get(item.legal_document_id)
        status.by_document[item.legal_document_id] = f"{card}; {text}" if card else f"Er laglista: {text}"
    return status
