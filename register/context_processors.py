"""The header's count of the change notices unread by the member (unanswered ones they have not opened), for
the workspace the page is in (or the one last visited on pages outside a workspace). Lazy: a page that does not show the header runs no query; one that
does runs one COUNT that also checks the membership."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .notices.selectors import notice_counts


def change_notices(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    match = getattr(request, "resolver_match", None)
    # An error page rendered before the session middleware ran has no session: then only the URL's workspace.
    session = getattr(request, "session", None)
    slug = ((match.kwargs.get("slug") if match is not None else None)
            or (session.get("current_workspace", "") if session is not None else ""))
    return {"notice_counts": SimpleLazyObject(lambda: notice_counts(user, slug))}
