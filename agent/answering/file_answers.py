"""Questions about the workspace's own files ("Vilka dokument har vi laddat upp?", "Vilka filer finns i
kunskapsbasen?"), answered from the files themselves, with or without a model: each current file with its status,
upload day and a link to its page, as the Kunskapsbas page lists them (compliance.selectors.user_file_list, so only
the asking workspace's files, never another's).

Retrieval answered these from the law, quoting §§ that write "dokument" or "ladda". Only the whole message counts
("Vilka dokument har vi om arbetsmiljö?" asks what the files say, which retrieval answers).

Wired in agent.answering.chat.stream_answer before retrieval.
"""

from __future__ import annotations

import re

from django.urls import reverse

from compliance.clock import swedish_date
from compliance.models import UserFile, Workspace
from compliance.selectors import user_file_list
from compliance.text import markdown_text

_FILES_QUESTION_RE = re.compile(
    r"^(?:(?:vilka|vad\s+för)\s+(?:filer|dokument)\s+(?:har\s+vi|finns(?:\s+det)?)"
    r"(?:\s+(?:laddat\s+upp|lagt\s+upp|uppladdade|sparade|i\s+kunskapsbasen|i\s+arbetsytan|hos\s+oss))?"
    r"|visa\s+(?:våra|alla)\s+(?:filer|dokument)"
    r"|which\s+(?:files|documents)\s+(?:have\s+we\s+uploaded|do\s+we\s+have))"
    r"[\s?.!]*$",
    re.IGNORECASE,
)
MAX_FILES = 25


def is_files_question(question: str) -> bool:
    return bool(_FILES_QUESTION_RE.match(" ".join(question.split())))


def file_answer(question: str, workspace: Workspace) -> str | None:
    """The workspace's files, or None when `question` does not ask for them."""
    if not is_files_question(question):
        return None
    knowledge = reverse("knowledge", args=[workspace.slug])
    files = list(user_file_list(workspace).order_by("title", "pk")[:MAX_FILES + 1])
    if not files:
        return (f"Arbetsytan {markdown_text(workspace.name)} har inga egna filer. Ladda upp policyer, rutiner och "
                f"avtal under [Kunskapsbas]({knowledge}), så söker assistenten i dem också.")
    total = user_file_list(workspace).count() if len(files) > MAX_FILES else len(files)
    lines = [_line(f, workspace) for f in files[:MAX_FILES]]
    more = [f"- … och {total - MAX_FILES} till"] if total > MAX_FILES else []
    return "\n".join([f"**Arbetsytans filer ({total}):**", "", *lines, *more, "",
                      f"Alla under [Kunskapsbas]({knowledge}). Privata filer används aldrig som underlag för svar."])


def _line(file: UserFile, workspace: Workspace) -> str:
    parts = [file.get_status_display(), f"uppladdad {swedish_date(file.created_at).isoformat()}"]
    if file.version > 1:
        parts.append(f"version {file.version}")
    if file.is_private:
        parts.append("privat")
    url = reverse("file_detail", args=[workspace.slug, file.pk])
    return f"- [{markdown_text(file.title)}]({url}): {', '.join(parts)}"
