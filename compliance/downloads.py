"""A file the app hands a person to save: an exported laglista or review, a glossary. One dataclass and one way to
answer with it, so every download, from a page or the API, is an attachment under its own name with the same
headers, whichever app built the bytes."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpResponse

CONTENT_TYPES = {"xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                 "pdf": "application/pdf", "csv": "text/csv; charset=utf-8"}


@dataclass(frozen=True)
class ExportFile:
    content: bytes
    content_type: str
    file_name: str

    def as_download(self) -> HttpResponse:
        """The page's and the API's answer: an attachment under the file's name, never sniffed as another type."""
        response = HttpResponse(self.content, content_type=self.content_type)
        response["Content-Disposition"] = f'attachment; filename="{self.file_name}"'
        response["X-Content-Type-Options"] = "nosniff"
        return response
