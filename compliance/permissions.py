"""The one check the pages make before a write: the member's role may edit the workspace."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from .models import Membership


def require_edit(membership: Membership) -> None:
    """Readers and revisors read; a write from them is a 403 with the reason in Swedish."""
    if not membership.can_edit:
        raise PermissionDenied("Du har bara läsbehörighet i den här arbetsytan.")
