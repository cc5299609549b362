"""Hooks for django-axes (login throttling): the lockout page and the client's address."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render


def locked_out_response(request, original_response=None, credentials=None):
    """The login page again, with a Swedish lockout message and 429, instead of axes' English text."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return render(
        request,
        "registration/login.html",
        {"locked_out": True, "lockout_minutes": minutes, "next": request.POST.get("next", "")},
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )


def client_ip(request) -> str | None:
    """REMOTE_ADDR, or the header a trusted reverse proxy sets (LOGIN_CLIENT_IP_HEADER)."""
    header = settings.LOGIN_CLIENT_IP_HEADER
    if header:
        value = request.META.get(header, "").split(",")[0].strip()
        if value:
            return value
    return request.META.get("REMOTE_ADDR")
