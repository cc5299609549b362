"""One domain error type, converted once for the API and once for the HTML pages."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from agent.answering.chat import ChatInputError
from agent.retrieval.hybrid import RetrievalInputError
from chunks.extract import ExtractionError
from chunks.services import SourceFailed
from compliance.errors import ApplicationError
from compliance.middleware import ApplicationErrorMiddleware
from compliance.services import MembershipError, UploadError
from tests.helpers import make_user


@pytest.mark.parametrize("cls", [UploadError, MembershipError, ExtractionError, SourceFailed, ChatInputError,
                                 RetrievalInputError])
def test_every_domain_error_is_an_application_error(cls: type[ApplicationError]) -> None:
    error = cls("some_code", "Ett fel på svenska.")
    assert isinstance(error, ApplicationError)
    assert (error.code, error.message, error.status) == ("some_code", "Ett fel på svenska.", 400)


@pytest.mark.django_db
def test_html_pages_show_the_swedish_message_with_the_errors_status() -> None:
    request = RequestFactory().get("/ws/demo/kunskapsbas/")
    request.user = make_user("erik")
    middleware = ApplicationErrorMiddleware(lambda r: None)
    response = middleware.process_exception(request, UploadError("too_large", "Filen är för stor.", status=413))
    assert response.status_code == 413
    assert "Filen är för stor." in response.content.decode()
    assert middleware.process_exception(request, ValueError("not ours")) is None


def test_the_api_is_left_to_its_own_handler() -> None:
    request = RequestFactory().get("/api/v1/workspaces/")
    middleware = ApplicationErrorMiddleware(lambda r: None)
    assert middleware.process_exception(request, UploadError("empty", "Filen är tom.")) is None
