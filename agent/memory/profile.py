"""What the assistant remembers about who it is talking to, as the pre-model step uses it.

Two kinds of memory (stored by compliance/: `WorkspaceProfile` + `ProfileFact`, shared by the
workspace's members, and `PersonalPreference`, one user's own) become the lines of the
"Användarprofil" section of the context message, within their own token budget. The lines
are text users typed: they are neutralised like source text and delimited by the request's
boundary token (agent.answering.context_assembly.profile_block), so they cannot close their block or
pose as our instructions.

`fingerprint` identifies what the section says; the retrieval cache keys on it, so a
changed or deleted fact is never answered from a stale entry, and nothing cached for one
user's preferences or one workspace's profile is reused for another's.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field

from cachetools import LRUCache, cached
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from agent.models import Message
from chunks.tokens import count_tokens
from compliance.errors import ApplicationError
from compliance.models import PREFERENCE_FIELDS, PROFILE_FIELDS, FactOrigin, Workspace, WorkspaceProfile, stated_fields
from compliance.selectors import (
    membership_get,
    preference_get,
    profile_fact_list,
    workspace_memory_version,
    workspace_profile_get,
)
from compliance.services import (
    FACT_TEXT_MAX,
    ProfileInputError,
    clean_preference_values,
    clean_profile_text,
    clean_profile_values,
    preference_update,
    profile_fact_add,
    profile_update,
)
from compliance.text import neutralise, swedish_list

from .detection import FACT, PREFERENCE, PROFILE, detect
from .register_proposals import REGISTER_ITEM, register_proposal_store

PROFILE_HEADING = "Arbetsytans profil (gäller organisationen):"
PREFERENCES_HEADING = "Användarens egna önskemål (gäller bara den här användaren):"
FACTS_HEADING = "Övriga uppgifter om organisationen:"


@dataclass(frozen=True)
class Memory:
    """The stated profile and preferences of one user in one workspace."""

    profile: tuple[tuple[str, str, str], ...] = ()  # (field, label, shown value)
    facts: tuple[str, ...] = ()
    preferences: tuple[tuple[str, str, str], ...] = ()
    mentions: tuple[str, ...] = field(default=())  # Swedish phrases for "Ni har angett …"

    @property
    def empty(self) -> bool:
        return not (self.profile or self.facts or self.preferences)

    @property
    def fingerprint(self) -> str:
        if self.empty:
            return ""
        raw = repr((self.profile, self.facts, self.preferences))
        return hashlib.sha256(raw.encode()).hexdigest()[:24]


def memory_cached(workspace: Workspace, user: AbstractBaseUser | AnonymousUser | None) -> Memory:
    """memory_for, reused while the workspace's memory_version stands: one small query instead of
    three on every turn. The key holds the user, so one member's preferences are never served to
    another."""
    if not getattr(user, "is_authenticated", False):
        return memory_for(workspace, user)
    return _memory_by_version(workspace.pk, workspace_memory_version(workspace), user.pk, workspace, user)


@cached(LRUCache(maxsize=512), key=lambda ws_id, version, user_id, *_: (ws_id, version, user_id),
        lock=threading.Lock())
def _memory_by_version(ws_id: int, version: int, user_id: int, workspace: Workspace, user: AbstractBaseUser) -> Memory:
    return memory_for(workspace, user)


@cached(LRUCache(maxsize=512), lock=threading.Lock())
def profile_lines_cached(memory: Memory, budget: int, encoding: str = "o200k_base") -> tuple[str, ...]:
    """profile_lines for a memory (hashable: frozen tuples), counted once, not on every turn."""
    return tuple(profile_lines(memory, budget, encoding))


def memory_for(workspace: Workspace, user: AbstractBaseUser | AnonymousUser | None) -> Memory:
    """The workspace's profile and the user's own preferences (never anyone else's)."""
    profile = workspace_profile_get(workspace)
    facts = tuple(f.text for f in profile_fact_list(workspace)) if profile.pk else ()
    preference = preference_get(workspace, user) if getattr(user, "is_authenticated", False) else None
    return Memory(
        profile=tuple(stated_fields(profile, PROFILE_FIELDS)),
        facts=facts,
        preferences=tuple(stated_fields(preference, PREFERENCE_FIELDS)) if preference is not None else (),
        mentions=tuple(_mentions(profile)),
    )


def _mentions(profile: WorkspaceProfile) -> list[str]:
    out = []
    if profile.employee_count is not None:
        out.append(f"{profile.employee_count} anställda")
    if profile.has_collective_agreement is True:
        agreement = profile.collective_agreement
        out.append(f"kollektivavtal med {agreement}" if agreement else "kollektivavtal")
    elif profile.has_collective_agreement is False:
        out.append("inget kollektivavtal")
    if profile.sector:
        out.append(f"{profile.get_sector_display()} verksamhet")
    if profile.industry:
        out.append(f"branschen {profile.industry}")
    if profile.sni_code:
        out.append(f"SNI-kod {profile.sni_code}")
    if profile.processes_sensitive_data is True:
        out.append("att ni behandlar känsliga personuppgifter")
    elif profile.processes_sensitive_data is False:
        out.append("att ni inte behandlar känsliga personuppgifter")
    if profile.location:
        out.append(f"verksamhetsort {profile.location}")
    return out


def mention_sentence(memory: Memory) -> str:
    """"Ni har angett 45 anställda och kollektivavtal med Unionen: …" for answers without a model."""
    if not memory.mentions:
        return ""
    listed = swedish_list([" ".join(m.split()) for m in memory.mentions])
    return (f"Ni har angett {listed}: kontrollera i utdragen nedan vilka regler som gäller för en sådan "
            "verksamhet.")


def profile_lines(memory: Memory, budget: int, encoding: str = "o200k_base") -> list[str]:
    """The section's lines, most important first, cut to fit `budget` tokens (free-text facts go first)."""
    if memory.empty:
        return []
    head: list[str] = []
    if memory.profile:
        head.append(PROFILE_HEADING)
        head.extend(_line(label, value) for _, label, value in memory.profile)
    prefs: list[str] = []
    if memory.preferences:
        prefs.append(PREFERENCES_HEADING)
        prefs.extend(_line(label, value) for _, label, value in memory.preferences)
    facts = [FACTS_HEADING, *(f"- {_clean(f)}" for f in memory.facts)] if memory.facts else []
    lines = head + prefs + facts
    # The profile block's delimiters and rule are counted by the caller's reserve; keep the lines well inside it.
    while lines and count_tokens("\n".join(lines), encoding) > budget:
        lines.pop()
        if lines and lines[-1] in (FACTS_HEADING, PREFERENCES_HEADING, PROFILE_HEADING):
            lines.pop()
    return lines


def _line(label: str, value: str) -> str:
    return f"- {label[:1].upper()}{label[1:]}: {_clean(value)}"


def _clean(text: str) -> str:
    # One line each, and no text that looks like our delimiters.
    return neutralise(" ".join(str(text).split()))


# --- learning from the conversation, with consent ------------------------------------------------


class ProposalError(ApplicationError):
    """A proposal that cannot be decided (gone, already decided, or not the caller's to save)."""


PENDING, SAVED, DECLINED = "pending", "saved", "declined"


def proposals_for(content: str, workspace: Workspace, user: AbstractBaseUser) -> list[dict]:
    """What `content` states that is worth remembering and not yet remembered, as proposals to show.

    Facts about the organisation are proposed only to members who may edit the profile; a value
    the store would refuse (an absurd employee count) is not proposed at all.
    """
    membership = membership_get(user, workspace)
    if membership is None:
        return []
    profile = workspace_profile_get(workspace)
    preference = preference_get(workspace, user)
    known_facts = {f.casefold() for f in profile_fact_list(workspace).values_list("text", flat=True)} \
        if profile.pk else set()
    out = []
    for proposal in detect(content):
        if proposal.kind in (PROFILE, FACT) and not membership.can_edit:
            continue
        try:
            if proposal.kind == PROFILE:
                value = clean_profile_values({proposal.field: proposal.value})[proposal.field]
                if getattr(profile, proposal.field) == value:
                    continue
            elif proposal.kind == PREFERENCE:
                value = clean_preference_values({proposal.field: proposal.value})[proposal.field]
                if getattr(preference, proposal.field) == value:
                    continue
            else:
                value = clean_profile_text(proposal.value, field="text", label="Uppgift", limit=FACT_TEXT_MAX)
                if value.casefold() in known_facts:
                    continue
        except ProfileInputError:
            continue
        out.append({**proposal.as_dict(), "value": value, "status": PENDING})
    return out


def proposal_decide(*, message: Message, index: int, user: AbstractBaseUser, save: bool) -> dict:
    """Save (with the conversation as its origin) or decline one proposal of an answer; returns it."""
    with transaction.atomic():
        message = type(message).objects.select_for_update().select_related("conversation").get(pk=message.pk)
        proposals = list(message.proposals or [])
        if not 0 <= index < len(proposals):
            raise ProposalError("not_found", "Förslaget finns inte.", status=404)
        proposal = dict(proposals[index])
        if proposal.get("status") != PENDING:
            raise ProposalError("already_decided", "Förslaget är redan besvarat.", status=409)
        conversation = message.conversation
        if proposal.get("kind") == REGISTER_ITEM:
            # The laglista's offer checks its target again; a changed target refuses and writes nothing.
            proposal.update(register_proposal_store(proposal, conversation.workspace, user, save=save))
        elif save:
            _store(proposal, conversation.workspace, user, conversation.pk)
        proposal["status"] = SAVED if save else DECLINED
        proposals[index] = proposal
        message.proposals = proposals
        message.save(update_fields=["proposals"])
    return proposal


def _store(proposal: dict, workspace: Workspace, user: AbstractBaseUser, conversation_id: int) -> None:
    kind, field, value = proposal.get("kind"), proposal.get("field"), proposal.get("value")
    if kind in (PROFILE, FACT):
        membership = membership_get(user, workspace)
        if membership is None or not membership.can_edit:
            raise ProposalError("forbidden", "Du har bara läsbehörighet: bara ägare och redaktörer kan spara "
                                "uppgifter om organisationen.", status=403)
    if kind == PROFILE:
        profile_update(workspace=workspace, user=user, values={field: value}, origin=FactOrigin.CONVERSATION,
                       conversation_id=conversation_id)
    elif kind == PREFERENCE:
        preference_update(workspace=workspace, user=user, values={field: value}, origin=FactOrigin.CONVERSATION,
                          conversation_id=conversation_id)
    elif kind == FACT:
        profile_fact_add(workspace=workspace, user=user, text=value, origin=FactOrigin.CONVERSATION,
                         conversation_id=conversation_id)
    else:
        raise ProposalError("not_found", "Förslaget finns inte.", status=404)
