"""OpenAPI helpers: the error component every operation documents, and the
token authentication scheme."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stabil felkod, t.ex. `invalid`, `not_found`, `permission_denied`.")
    message = serializers.CharField(help_text="Felmeddelande på svenska.")
    details = serializers.JSONField(help_text="Fältfel och annan detaljinformation (kan vara tomt).")


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


ERROR_DESCRIPTIONS = {
    "400": "Ogiltig indata.",
    "401": "Inte inloggad, eller ogiltig/återkallad API-nyckel.",
    "403": "Inloggad men saknar behörighet (t.ex. läsare som försöker skriva).",
    "404": "Finns inte, eller tillhör en annan arbetsyta.",
    "429": "För många anrop.",
}


class LagrumAutoSchema(AutoSchema):
    """Adds the error responses (one shape, ErrorSerializer) to every operation."""

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code, description in ERROR_DESCRIPTIONS.items():
            if code not in responses:
                body = self._get_response_for_code(ErrorSerializer, code, media_types=["application/json"],
                                                   direction=direction)
                body["description"] = description
                responses[code] = body
        return responses


class ApiTokenAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "compliance.api.authentication.ApiTokenAuthentication"
    name = "ApiToken"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "lgr_…",
            "description": "Personlig API-nyckel: `Authorization: Bearer lgr_…` (skapas via POST /api/v1/tokens/).",
        }
