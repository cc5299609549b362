"""What the assistant remembers about who it is talking to, as the pre-model step uses it.

Two kinds of memory (stored by compliance/: `WorkspaceProfile` + `ProfileFact`, shared by the
workspace's members, and `PersonalPreference`, one user's own) become the lines of the
"Användarprofil" section of the context message, within their own token budget. The lines
are text users typed: they are neutralised like source text and delimited by the request's
boundary token (agent.context_assembly.profile_block), so they cannot close their block or
pose as our instructions.

`fingerprint` identifies what the section says; the retrieval cache keys on it, so a
changed or deleted fact is never answered from a stale entry, and nothing cached for one
user's preferences or one workspace's profile is reused for another's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from chunks.tokens import count_tokens
from compliance.models import PREFERENCE_FIELDS, PROFILE_FIELDS, stated_fields
from compliance.selectors import preference_get, profile_fact_list, workspace_profile_get

from .context_assembly import neutralise

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


def memory_for(workspace, user) -> Memory:
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


def _mentions(profile) -> list[str]:
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
    items = [" ".join(m.split()) for m in memory.mentions]
    listed = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " och " + items[-1]
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
