from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest

from .models import Workspace
from .selectors import workspace_list_for_user


def workspaces(request: HttpRequest) -> dict[str, QuerySet[Workspace]]:
    """The workspace switcher lists only the user's own workspaces."""
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    return {"my_workspaces": workspace_list_for_user(request.user)}
