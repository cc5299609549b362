"""One error shape for the whole API: {"error": {"code", "message", "details"}}."""

from __future__ import annotations

from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def error_response(code: str, message: str, http_status: int, details=None) -> Response:
    return Response({"error": {"code": code, "message": message, "details": details or {}}}, status=http_status)


def exception_handler(exc, context):
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Hittades inte.")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        code, message, details = "invalid", "Ogiltig indata.", response.data
    else:
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else response.data
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
        message, details = str(detail), {}
    if isinstance(details, list):
        details = {"non_field_errors": details}
    response.data = {"error": {"code": str(code), "message": message, "details": details}}
    if response.status_code == status.HTTP_403_FORBIDDEN and code == "not_authenticated":
        response.status_code = status.HTTP_401_UNAUTHORIZED
    return response
