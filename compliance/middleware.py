"""Domain errors on the HTML pages: one conversion, like the API's exception handler.

A view that lets an ApplicationError escape gets the error's Swedish message
on an error page with the error's status (an htmx request gets just the
message, to swap into the page). The API has its own handler and is left alone.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from .errors import ApplicationError


class ApplicationErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ApplicationError) or request.path.startswith("/api/"):
            return None
        return error_response(request, exception)


def error_response(request: HttpRequest, error: ApplicationError) -> HttpResponse:
    if getattr(request, "htmx", False):
        return HttpResponse(error.message, status=error.status, content_type="text/plain; charset=utf-8")
    return render(request, "error.html", {"message": error.message, "code": error.code}, status=error.status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: a request Django refuses before any view runs. A form posted with more than
    DATA_UPLOAD_MAX_MEMORY_SIZE (a pasted book in a comment) is the one a person causes: say so in Swedish."""
    if isinstance(exception, RequestDataTooBig):
        message = "Det du skickade är för stort. Inget sparades – korta texten och försök igen."
    else:
        message = "Begäran kunde inte tolkas. Inget sparades."
    if getattr(request, "htmx", False):
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
    return render(request, "error.html", {"message": message, "code": "bad_request"}, status=400)
