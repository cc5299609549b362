"""Rate limits keyed by API token (one budget per token), or by user for sessions."""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from compliance.models import ApiToken


class TokenRateThrottle(UserRateThrottle):
    scope = "user"

    def get_rate(self) -> str | None:
        # Read at request time, so a changed REST_FRAMEWORK setting takes effect (tests, reloads).
        rates = getattr(settings, "REST_FRAMEWORK", {}).get("DEFAULT_THROTTLE_RATES", {})
        return rates.get(self.scope) or super().get_rate()

    def get_cache_key(self, request: Request, view: APIView) -> str:
        if isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": f"token{request.auth.pk}"}
        return super().get_cache_key(request, view)
