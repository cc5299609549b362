"""An answer's offer to put a document it cited on the organisation's laglista, decided by a person's click.

Offered only to members who may edit, only in a workspace that keeps a laglista (it has a register), only for
legal documents the answer actually cites that are on none of the workspace's registers and that nobody turned
down before. The offer names its target (the document and the register); deciding it checks that target again:
a document put on the list in between, or a register deleted in between, makes the offer fail with a clear
message instead of writing anything. "Nej tack" is remembered like a rejected suggestion.
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser

from compliance.errors import ApplicationError
from compliance.models import LegalDocument, Workspace
from compliance.selectors import membership_get
from register.models import ItemOrigin, LegalRegister, RegisterItem, SuggestionDecision
from register.services import document_decline, register_group_get_or_create, register_item_add

REGISTER_ITEM = "register_item"
# At most this many offers under one answer: the documents it rests on, not everything it mentions.
MAX_OFFERS = 2
ASSISTANT_GROUP = "Från assistenten"


class RegisterProposalError(ApplicationError):
    """An offer whose target changed since it was made."""

    status = 409


def register_proposals_for(documents: list[tuple[int, str]], workspace: Workspace,
                           user: AbstractBaseUser) -> list[dict]:
    """Offers for the cited legal documents (id, number), in citation order."""
    if not documents:
        return []
    membership = membership_get(user, workspace)
    if membership is None or not membership.can_edit:
        return []
    register = LegalRegister.objects.filter(workspace=workspace).order_by("pk").first()
    if register is None:
        return []
    ids = [doc_id for doc_id, _ in documents]
    taken = set(RegisterItem.objects.filter(workspace=workspace, legal_document_id__in=ids)
                .values_list("legal_document_id", flat=True))
    taken |= set(SuggestionDecision.objects.filter(workspace=workspace, legal_document_id__in=ids)
                 .values_list("legal_document_id", flat=True))
    titles = dict(LegalDocument.objects.filter(pk__in=ids).values_list("pk", "title"))
    out: list[dict] = []
    for doc_id, number in documents:
        if doc_id in taken or doc_id not in titles or any(p["value"]["document_id"] == doc_id for p in out):
            continue
        out.append({"kind": REGISTER_ITEM, "field": "legal_document",
                    "value": {"document": number, "document_id": doc_id, "register_id": register.pk},
                    "label": f"{titles[doc_id]} i laglistan {register.name}", "status": "pending"})
        if len(out) == MAX_OFFERS:
            break
    return out


def register_proposal_store(proposal: dict, workspace: Workspace, user: AbstractBaseUser, *, save: bool) -> dict:
    """Carry out (save) or decline one offer; returns what the proposal records about the outcome."""
    membership = membership_get(user, workspace)
    if membership is None or not membership.can_edit:
        raise ApplicationError("forbidden", "Du har bara läsbehörighet: bara ägare och redaktörer kan ändra "
                               "laglistan.", status=403)
    value = proposal.get("value") or {}
    document = LegalDocument.objects.filter(pk=value.get("document_id"), sfs_number=value.get("document")).first()
    if document is None:
        raise RegisterProposalError("target_changed", "Författningen finns inte längre i källorna.")
    if not save:
        document_decline(workspace=workspace, user=user, legal_document=document,
                         reason="Avböjt förslag från assistenten.")
        return {}
    register = LegalRegister.objects.filter(workspace=workspace, pk=value.get("register_id")).first()
    if register is None:
        raise RegisterProposalError("target_changed", "Laglistan finns inte längre. Inget har lagts till.")
    existing = RegisterItem.objects.filter(workspace=workspace, legal_document=document).first()
    if existing is not None:
        raise RegisterProposalError("target_changed", f"{document.title} finns redan på laglistan "
                                    f"{existing.register.name}. Inget har lagts till.")
    group = register_group_get_or_create(register=register, user=user, name=ASSISTANT_GROUP)
    result = register_item_add(register=register, user=user, legal_document=document, group=group,
                               reason="Föreslagen av assistenten i ett svar som hänvisade till den.",
                               origin=ItemOrigin.ASSISTANT)
    return {"item_id": result.item.pk}
