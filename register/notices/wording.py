"""How a change notice is put into words, the same on the Lagändringar page, in the e-mail digest, in the
report's rows and in the assistant's answer about the workspace's changes.

The amendment's date is written "gäller från": a notice is often read before that day and often after, and
"i kraft 2027-01-01" reads as a fact that may not yet be one.
"""

from __future__ import annotations

from compliance.text import swedish_list
from law.models import StatuteChange

from ..models import ChangeNotice

NEW_TEXT = "ny författning som kan gälla er"
OFF_LIST_AMENDED = "finns inte på er laglista, men {documents} på den hänvisar till den"
OFF_LIST_REPEALED = "finns inte på er laglista, men {documents} på den vilar på eller hänvisar till den"


def notice_act_text(notice: ChangeNotice) -> str:
    """What happened to the document, and through which act from which day: "ändrad genom SFS 2025:1142,
    gäller från 2026-01-01", "ändrad genom 40 författningar t.o.m. SFS 2025:1508, den senaste gäller från
    2026-01-15", "upphävd genom SFS 2025:1506, den 2026-07-01", "ny författning som kan gälla er"."""
    if notice.kind == ChangeNotice.Kind.AMENDED:
        through = notice.version.amended_through.replace("t.o.m. ", "")
        day = notice.version.valid_from.isoformat() if notice.version.valid_from else ""
        if notice.act_count > 1:  # the version brings several acts' changes; its day is the last act's
            text = f"ändrad genom {notice.act_count} författningar t.o.m. {through}"
            return text + (f", den senaste gäller från {day}" if day else "")
        return f"ändrad genom {through}" + (f", gäller från {day}" if day else "")
    if notice.kind == ChangeNotice.Kind.REPEALED:
        text = "upphävd" + (f" genom {notice.replaced_by}" if notice.replaced_by else "")
        return text + (f", den {notice.repeal.repealed_on.isoformat()}" if notice.repeal.repealed_on else "")
    return NEW_TEXT


# A changed unit's kind in words (singular, plural), in the order a notice names them: the amended first.
_UNIT_WORDS = {
    StatuteChange.Kind.AMENDED: ("ändrad", "ändrade"),
    StatuteChange.Kind.ADDED: ("ny", "nya"),
    StatuteChange.Kind.REPEALED: ("upphävd", "upphävda"),
    StatuteChange.Kind.RENUMBERED: ("med ny beteckning", "med ny beteckning"),
}


def _units(count: int) -> str:
    return f"{count} enhet" if count == 1 else f"{count} enheter"


def notice_units_text(notice: ChangeNotice) -> str:
    """How many units an amendment changed, and how: "3 ändrade enheter", "1 ny enhet", "2 enheter med ny
    beteckning", "5 enheter (3 ändrade, 1 ny och 1 upphävd)"; "" for a notice with no changed units. A notice
    counted before the kinds were (`unit_counts` empty or not adding up) gives its count alone: "4 ändrade
    enheter" would call a repealed § amended."""
    total = notice.change_count
    if not total:
        return ""
    counts = notice.unit_counts or {}
    named = [(counts[kind], words) for kind, words in _UNIT_WORDS.items() if counts.get(kind)]
    if sum(count for count, _ in named) != total:
        return f"{_units(total)} berörs"
    if len(named) == 1:
        (count, (singular, plural)), = named
        word = singular if count == 1 else plural
        if word.startswith("med "):
            return f"{_units(count)} {word}"
        return f"{count} {word} {'enhet' if count == 1 else 'enheter'}"
    parts = [f"{count} {singular if count == 1 else plural}" for count, (singular, plural) in named]
    return f"{_units(total)} ({swedish_list(parts)})"


def _titles(documents: list[dict], limit: int) -> str:
    titles = [document["title"] for document in documents[:limit]]
    rest = len(documents) - len(titles)
    return swedish_list(titles + ([f"ytterligare {rest}"] if rest else []))


def notice_subject_text(notice: ChangeNotice, *, limit: int = 3) -> str:
    """Why a new statute is suggested: the documents it cites whose subject the laglista has, "hänvisar till
    Plan- och bygglag (2010:900) på er laglista" or "hänvisar till Socialavgiftslag (2000:980) inom ämnet
    ”redovisning, bolag, skatt”"; "" for another kind of notice, or one suggested before its reason was kept."""
    if notice.kind != ChangeNotice.Kind.NEW or not notice.subject_documents:
        return ""
    listed = [document for document in notice.subject_documents if document.get("listed")]
    other = [document for document in notice.subject_documents if not document.get("listed")]
    parts = []
    if listed:
        parts.append(f"{_titles(listed, limit)} på er laglista")
    if other:
        # A category is a list itself ("redovisning, bolag, skatt"): quoted, so two read as two.
        subjects = [f"”{category}”" for category in dict.fromkeys(document["category"] for document in other)]
        noun = "ämnet" if len(subjects) == 1 else "ämnena"
        parts.append(f"{_titles(other, limit)} inom {noun} {swedish_list(subjects)}")
    return "hänvisar till " + " och till ".join(parts)


def notice_off_list_text(notice: ChangeNotice, *, limit: int = 3) -> str:
    """Why the workspace hears of a document its laglista does not hold, naming the listed documents that bring it
    ("finns inte på er laglista, men Offentlighets- och sekretesslag (2009:400) på den hänvisar till den"), or ""
    when it holds it (or it is new). A notice made before they were kept says "andra författningar"."""
    if notice.item_id is not None or notice.kind == ChangeNotice.Kind.NEW:
        return ""
    text = OFF_LIST_REPEALED if notice.kind == ChangeNotice.Kind.REPEALED else OFF_LIST_AMENDED
    documents = _titles(notice.leaning_documents, limit) if notice.leaning_documents else "andra författningar"
    return text.format(documents=documents)


def notice_successor_text(notice: ChangeNotice) -> str:
    """"ersätts av <title>" for a repeal whose replacing act is loaded, else ""."""
    if notice.kind == ChangeNotice.Kind.REPEALED and notice.replacement_id:
        return f"ersätts av {notice.replacement.title}"
    return ""


def notice_change_text(notice: ChangeNotice) -> str:
    """The act and day, and a repeal's successor: the report's "Ändring" column, beside its own columns for the
    units and the laglista."""
    return "; ".join(filter(None, (notice_act_text(notice), notice_successor_text(notice))))


def notice_line(notice: ChangeNotice) -> str:
    """The notice in one line, for a list in running text (the digest, the assistant): the act and day, how many
    units changed and how, the units touching the kravpunkter and those they cite, why a new statute is suggested, why an unlisted document is there, and a repeal's successor."""
    parts = [notice_act_text(notice)]
    if notice.kind == ChangeNotice.Kind.AMENDED:
        if units := notice_units_text(notice):
            parts.append(units)
        if notice.relevant_units:
            parts.append(f"berör era kravpunkter: {', '.join(notice.relevant_units)}")
        if notice.cited_units:
            parts.append(f"hänvisas till från era kravpunkter: {', '.join(notice.cited_unit_citations)}")
    if subject := notice_subject_text(notice):
        parts.append(subject)
    if off_list := notice_off_list_text(notice):
        parts.append(off_list)
    if successor := notice_successor_text(notice):
        parts.append(successor)
    return "; ".join(parts)
