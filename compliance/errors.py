"""The one base for errors a user can cause and should be told about.

Every domain error carries a stable `code` and a Swedish `message` for people,
plus the HTTP `status` it means. The API's exception handler converts them in
one place (compliance/api/errors.py) and the HTML views in one helper
(`compliance.views_common.error_message`), so no view translates a domain error
by hand.
"""

from __future__ import annotations


class ApplicationError(Exception):
    code = "invalid"
    message = "Ogiltig begäran."
    status = 400

    def __init__(self, code: str | None = None, message: str | None = None, *, status: int | None = None,
                 details: dict | None = None) -> None:
        self.code = code or self.code
        self.message = message or self.message
        if status is not None:
            self.status = status
        # Machine-readable facts for API clients (e.g. the id of the file a duplicate matches).
        self.details = details or {}
        super().__init__(f"{self.code}: {self.message}")
