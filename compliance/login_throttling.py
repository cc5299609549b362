"""Hooks for django-axes (login throttling): the lockout page and the client's address."""

from __future__ import annotations

from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def lockout_context() -> dict:
    """What the login page says about a lockout: how long it lasts (LOGIN_LOCKOUT_MINUTES)."""
    return {"locked_out": True, "lockout_minutes": max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))}


def locked_out_response(request: HttpRequest, original_response: HttpResponse | None = None,
                        credentials: dict | None = None) -> HttpResponse:
    """The login page again, with a Swedish lockout message and 429, instead of axes' English text."""
    return render(
        request,
        "registration/login.html",
        {**lockout_context(), "next": request.POST.get("next", "")},
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )


class LoginView(auth_views.LoginView):
    """Django's login view, which also says so when the client's address is locked out already: someone
    coming back to the page (a developer after a test run locked 127.0.0.1) learns it, and for how long,
    before typing a password that cannot work."""

    template_name = "registration/login.html"

    def get_context_data(self, **kwargs: Any) -> dict:
        context = super().get_context_data(**kwargs)
        if self.request.method == "GET" and AxesProxyHandler.is_locked(self.request):
            context.update(lockout_context())
        return context


def client_ip(request: HttpRequest) -> str | None:
    """REMOTE_ADDR, or the header a trusted reverse proxy sets (LOGIN_CLIENT_IP_HEADER)."""
    header = settings.LOGIN_CLIENT_IP_HEADER
    if header:
        value = request.META.get(header, "").split(",")[0].strip()
        if value:
            return value
    return request.META.get("REMOTE_ADDR")
