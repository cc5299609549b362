"""A plain-Swedish summary of a statute version's changes, written by the chat model from the exact word diffs.

Made on request (the notice page's button), once per version: the law change is shared by every workspace, so
the first request stores it (`ChangeSummary`) and everyone sees that one. It is a reading aid and never the
record: the page shows it labelled as the model's, above the exact diffs it was made from. Without a model
configured nothing is made and nothing is shown; a failing or silent model is reported to the person who
asked and stores nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from compliance.chat_model import chat_client, model_configured
from law.diff import word_diff
from law.models import ChangeSummary, StatuteChange, StatuteVersion

log = logging.getLogger(__name__)

SUMMARY_LABEL = "Sammanfattning skapad av AI – kontrollera alltid mot ändringstexten nedan"
# The diffs the model is shown: a large amendment (plan- och bygglagen's 211 units) is summarised from its
# first units within this budget; the rest are named so the model does not speak of them as unchanged.
MAX_DIFF_CHARS = 12_000
# Unchanged text longer than this inside a unit is shortened around the change ("… ").
MAX_SAME_CHARS = 240
MAX_SUMMARY_CHARS = 4_000

SYSTEM_PROMPT = (
    "Du sammanfattar en ändring i en svensk författning på enkel svenska för den som ansvarar för att ett "
    "företag följer lagen. Underlaget är den exakta ändringstexten per paragraf: text inom [- -] har tagits "
    "bort och text inom {+ +} har lagts till; övrig text är oförändrad. Beskriv bara vad underlaget visar, "
    "paragraf för paragraf eller samlat när flera ändras på samma sätt, med paragrafens beteckning. Gissa inte "
    "om syften, följder eller paragrafer som inte visas. Skriv högst åtta korta punkter, utan rubrik."
)

_KIND_WORDS = {
    StatuteChange.Kind.ADDED: "ny",
    StatuteChange.Kind.AMENDED: "ändrad",
    StatuteChange.Kind.REPEALED: "upphävd",
    StatuteChange.Kind.RENUMBERED: "ny beteckning",
}


@dataclass(frozen=True)
class SummaryResult:
    summary: ChangeSummary | None
    error: str = ""  # Swedish, for the person who asked, when no summary could be made


def _shorten(text: str) -> str:
    if len(text) <= MAX_SAME_CHARS:
        return text
    half = MAX_SAME_CHARS // 2
    return f"{text[:half].rstrip()} … {text[-half:].lstrip()}"


def unit_diff_text(change: StatuteChange) -> str:
    """One changed unit for the model: its citation and kind, then its text with removals and additions marked."""
    head = f"{change.citation} ({_KIND_WORDS.get(change.kind, change.kind)}"
    if change.old_citation:
        head += f", tidigare {change.old_citation}"
    if change.amending_sfs:
        head += f", genom SFS {change.amending_sfs}"
    if change.in_force:
        head += f", i kraft {change.in_force.isoformat()}"
    stycken = []
    for stycke in word_diff(change.old_text, change.new_text):
        parts = []
        for segment in stycke:
            if segment.op == "added":
                parts.append("{+" + segment.text.strip() + "+} ")
            elif segment.op == "removed":
                parts.append("[-" + segment.text.strip() + "-] ")
            else:
                parts.append(_shorten(segment.text))
        stycken.append("".join(parts).strip())
    return head + "):\n" + "\n".join(stycken)


@dataclass(frozen=True)
class SummaryPrompt:
    messages: list[dict]
    units_shown: int
    units_total: int


def summary_prompt(version: StatuteVersion) -> SummaryPrompt | None:
    """The messages asking for the summary of `version`'s changes; None when it changed no unit."""
    changes = list(StatuteChange.objects.filter(to_version=version).order_by("ordinal"))
    if not changes:
        return None
    shown: list[str] = []
    used = 0
    for change in changes:
        text = unit_diff_text(change)
        if shown and used + len(text) > MAX_DIFF_CHARS:
            break
        shown.append(text[:MAX_DIFF_CHARS])
        used += len(text)
    rest = [c.citation for c in changes[len(shown):]]
    document = version.document
    lines = [f"Författning: {document.title} (SFS {document.sfs_number})",
             f"Ny version: {version.amended_through or 'okänd'}", "", *shown]
    if rest:
        lines += ["", f"Ytterligare {len(rest)} ändrade enheter visas inte här: {', '.join(rest[:60])}"
                      + (" …" if len(rest) > 60 else "") + ". Nämn att sammanfattningen bara gäller de visade."]
    return SummaryPrompt(messages=[{"role": "system", "content": SYSTEM_PROMPT},
                                   {"role": "user", "content": "\n\n".join(lines)}],
                         units_shown=len(shown), units_total=len(changes))


def change_summary_create(version: StatuteVersion) -> SummaryResult:
    """The version's summary: the stored one, or a new one from the model. Never raises for a model failure."""
    existing = ChangeSummary.objects.filter(version=version).first()
    if existing is not None:
        return SummaryResult(existing)
    if not model_configured():
        return SummaryResult(None, "Ingen AI-modell är konfigurerad; ändringstexten nedan är det som gäller.")
    prompt = summary_prompt(version)
    if prompt is None:
        return SummaryResult(None, "Versionen har inga ändrade paragrafer att sammanfatta.")
    try:
        stream = chat_client().chat.completions.create(model=settings.CHAT_MODEL, messages=prompt.messages,
                                                       stream=True, temperature=0.1)
        text = "".join(event.choices[0].delta.content or "" for event in stream if event.choices)
    except Exception:  # the model's failure (down, timeout, a broken reply) must never break the notice page
        log.exception("change summary failed for version %s", version.pk)
        return SummaryResult(None, "Det gick inte att skapa en sammanfattning just nu. Ändringstexten nedan gäller.")
    text = text.strip()[:MAX_SUMMARY_CHARS]
    if not text:
        return SummaryResult(None, "Modellen gav ingen sammanfattning. Ändringstexten nedan gäller.")
    # Two people asking at once both get an answer; the first one stored is the one kept and shown.
    summary, _ = ChangeSummary.objects.get_or_create(version=version, defaults={
        "text": text, "model": settings.CHAT_MODEL[:100], "units_shown": prompt.units_shown,
        "units_total": prompt.units_total})
    return SummaryResult(summary)
