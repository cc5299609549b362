"""API token authentication: `Authorization: Bearer lgr_...` (or `Token lgr_...`)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from compliance.models import ApiToken

LAST_USED_RESOLUTION = timedelta(minutes=1)


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("bearer", "token")

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace").lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Ogiltigt Authorization-huvud.")
        key = header[1].decode(errors="replace")
        token = (ApiToken.objects.select_related("user")
                 .filter(key_hash=ApiToken.hash_key(key), revoked_at__isnull=True).first())
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Ogiltig eller återkallad API-nyckel.")
        now = timezone.now()
        # A write per request would serialise every request of one token on its row lock;
        # "last used" to the minute is all the token list shows.
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return "Bearer"
