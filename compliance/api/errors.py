"""One error shape for the whole API: {"error": {"code", "message", "details"}}.

Every failure a client can cause is a 4xx in this shape: DRF's own exceptions,
Django's Http404/PermissionDenied/ValidationError, request bodies that are too
big or malformed, and every domain error (`compliance.errors.ApplicationError`,
converted here and nowhere else). An unexpected exception is logged and answered with a 500 in
the same shape, so clients only ever parse one format.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from compliance.errors import ApplicationError

log = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """A domain error with a stable code and a Swedish message."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"
    default_detail = "Ogiltig begäran."

    def __init__(self, code: str, message: str, *, http_status: int | None = None, details: dict | None = None) -> None:
        super().__init__(detail=message, code=code)
        self.error_code = code
        self.details = details or {}
        if http_status is not None:
            self.status_code = http_status


def error_body(code: str, message: str, details: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def error_response(code: str, message: str, http_status: int, details: dict | None = None) -> Response:
    return Response(error_body(code, message, details), status=http_status)


def _translate(exc: Exception) -> Exception:
    """Map Django and domain exceptions onto DRF exceptions."""
    if isinstance(exc, Http404):
        return exceptions.NotFound(str(exc) or "Hittades inte.")
    if isinstance(exc, PermissionDenied):
        return exceptions.PermissionDenied(str(exc) or "Du har inte behörighet att göra detta.")
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        return exceptions.ValidationError(detail)
    if isinstance(exc, ApplicationError):
        return ApiError(exc.code, exc.message, http_status=exc.status, details=exc.details)
    if isinstance(exc, RequestDataTooBig):
        return ApiError("too_large", "Begäran är för stor.", http_status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, SuspiciousOperation):
        return ApiError("bad_request", "Ogiltig begäran.")
    return exc


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    exc = _translate(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        # A bug, not the client's fault: log it, answer in the one shape.
        view = context.get("view")
        log.exception("unhandled API error in %s", type(view).__name__ if view else "?", exc_info=exc)
        set_rollback()
        return error_response("server_error", "Ett oväntat fel inträffade. Försök igen senare.",
                              status.HTTP_500_INTERNAL_SERVER_ERROR)
    if isinstance(exc, exceptions.ValidationError):
        code, message, details = "invalid", "Ogiltig indata.", response.data
    elif isinstance(exc, ApiError):
        code, message, details = exc.error_code, str(exc.detail), exc.details
    else:
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else response.data
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
        message, details = str(detail), {}
    if isinstance(details, list):
        details = {"non_field_errors": details}
    response.data = error_body(str(code), message, details)
    if response.status_code == status.HTTP_403_FORBIDDEN and code == "not_authenticated":
        response.status_code = status.HTTP_401_UNAUTHORIZED
    return response


def not_found_view(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any unknown /api/v1/ path: a JSON 404 in the error shape, not Django's HTML page."""
    return JsonResponse(error_body("not_found", "Resursen finns inte."), status=404)
