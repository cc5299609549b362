"""Files: upload, list with progress, download, soft delete; bad files fail politely."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.test import override_settings

from chunks.services import chunk_document
from compliance.models import Membership, UserFile
from tests.helpers import blocked_media_root

from .base import WS, ApiTestCase, assert_error

SWEDISH_HINTS = ("å", "ä", "ö", "Filen", "fil", "kunde inte")


def upload(name: str, data: bytes, content_type: str = "application/octet-stream") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


class FileTests(ApiTestCase):
    def post_file(self, name: str, data: bytes, content_type: str = "application/octet-stream",
                  **fields: Any) -> HttpResponse:
        return self.client.post(f"{WS}/files/", {"file": upload(name, data, content_type), **fields},
                                format="multipart")

    def test_upload_list_detail_download_delete(self) -> None:
        self.auth(self.bob)
        response = self.post_file("rutin.txt", b"Rutin for brandskydd.\n\nAlla ska veta var utgangarna finns.",
                                  "text/plain", title="Brandrutin", is_private="true")
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertEqual((body["title"], body["status"], body["is_private"], body["uploaded_by"]),
                         ("Brandrutin", "pending", True, "bob"))
        self.assertEqual(body["progress"], {"chunks_embedded": 0, "chunks_total": 0, "percent": 0})
        file_id = body["id"]

        result = chunk_document("USER_FILE", file_id)
        self.assertFalse(result.failed)
        detail = self.client.get(f"{WS}/files/{file_id}/").json()
        self.assertIn(detail["status"], ("processing", "done"))
        self.assertGreater(detail["progress"]["chunks_total"], 0)

        listed = self.client.get(f"{WS}/files/?ordering=title").json()
        self.assertEqual([f["title"] for f in listed["results"]], ["Brandrutin", "Policy"])
        self.assertEqual(self.client.get(f"{WS}/files/?is_private=true").json()["count"], 1)
        self.assertEqual(self.client.get(f"{WS}/files/?q=brand").json()["count"], 1)
        self.assertEqual(self.client.get(f"{WS}/files/?status=failed").json()["count"], 0)
        assert_error(self, self.client.get(f"{WS}/files/?status=broken"), 400)

        download = self.client.get(detail["download_url"])
        self.assertEqual(download.status_code, 200)
        self.assertEqual(b"".join(download.streaming_content)[:5], b"Rutin")
        self.assertIn("attachment", download["Content-Disposition"])
        self.assertEqual(download["X-Content-Type-Options"], "nosniff")

        self.assertEqual(self.client.delete(f"{WS}/files/{file_id}/").status_code, 204)
        self.assertIsNotNone(UserFile.objects.get(pk=file_id).deleted_at)  # soft: the row stays
        assert_error(self, self.client.get(f"{WS}/files/{file_id}/"), 404)
        assert_error(self, self.client.get(f"{WS}/files/{file_id}/download/"), 404)
        self.assertEqual(self.client.get(f"{WS}/files/").json()["count"], 1)

    def test_long_non_ascii_name_is_stored_safely_and_kept_for_display(self) -> None:
        self.auth(self.bob)
        name = "ä" * 200 + ".txt"
        response = self.post_file(name, "Rutin för brandskydd.".encode(), "text/plain")
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual((response.json()["original_name"], response.json()["title"]), (name, name))
        user_file = UserFile.objects.get(pk=response.json()["id"])
        stored = Path(user_file.file.name).name
        self.assertTrue(stored.endswith(".txt") and stored.startswith("ää"))
        self.assertLessEqual(len(stored.encode()), 255)
        self.assertFalse(chunk_document("USER_FILE", user_file.pk).failed)
        download = self.client.get(f"{WS}/files/{user_file.pk}/download/")
        self.assertEqual(b"".join(download.streaming_content), "Rutin för brandskydd.".encode())
        self.assertIn("%C3%A4%C3%A4", download["Content-Disposition"])  # the original name, RFC 5987-encoded

    def test_long_ascii_name_keeps_its_extension(self) -> None:
        self.auth(self.bob)
        response = self.post_file("riktlinje-" * 25 + ".md", b"# Riktlinje\n\nText.", "text/markdown")
        self.assertEqual(response.status_code, 201, response.content)
        user_file = UserFile.objects.get(pk=response.json()["id"])
        self.assertTrue(user_file.original_name.endswith(".md"))
        self.assertTrue(Path(user_file.file.name).name.endswith(".md"))

    def test_a_file_the_disk_refuses_is_a_structured_error(self) -> None:
        self.auth(self.bob)
        with self.settings(MEDIA_ROOT=blocked_media_root(self, self.workspace.pk)):
            response = self.post_file("rutin.txt", b"Rutin.", "text/plain")
        error = assert_error(self, response, 503, "storage_failed")
        self.assertIn("kunde inte sparas", error["message"])
        self.assertFalse(UserFile.objects.filter(original_name="rutin.txt").exists())

    def test_viewer_reads_but_cannot_write(self) -> None:
        Membership.objects.filter(user=self.bob).update(role=Membership.Role.VIEWER)
        self.auth(self.bob)
        self.assertEqual(self.client.get(f"{WS}/files/").status_code, 200)
        self.assertEqual(self.client.get(f"{WS}/files/{self.alice_file.pk}/").status_code, 200)
        assert_error(self, self.post_file("a.txt", b"hej", "text/plain"), 403, "permission_denied")
        assert_error(self, self.client.delete(f"{WS}/files/{self.alice_file.pk}/"), 403)
        self.assertIsNone(UserFile.objects.get(pk=self.alice_file.pk).deleted_at)
        self.assertEqual(UserFile.objects.filter(workspace=self.workspace).count(), 1)

    def test_empty_file_is_400(self) -> None:
        self.auth(self.alice)
        error = assert_error(self, self.post_file("tom.txt", b"", "text/plain"), 400, "empty")
        self.assertEqual(error["message"], "Filen är tom.")

    @override_settings(MAX_UPLOAD_BYTES=1000)
    def test_too_large_file_is_400(self) -> None:
        self.auth(self.alice)
        error = assert_error(self, self.post_file("stor.txt", b"a" * 1001, "text/plain"), 400, "too_large")
        self.assertIn("för stor", error["message"])

    def test_missing_file_or_bad_fields_are_400(self) -> None:
        self.auth(self.alice)
        assert_error(self, self.client.post(f"{WS}/files/", {"title": "x"}, format="multipart"), 400, "invalid")
        assert_error(self, self.client.post(f"{WS}/files/", {"file": "not a file"}, format="multipart"), 400)
        assert_error(self, self.post_file("a.txt", b"hej", "text/plain", is_private="kanske"), 400)
        assert_error(self, self.post_file("a.txt", b"hej", "text/plain", title="x\x00y"), 400)
        response = self.client.post(f"{WS}/files/", {"file": "x"}, format="json")
        assert_error(self, response, 415)

    def test_bad_files_are_accepted_then_fail_with_a_swedish_message(self) -> None:
        self.auth(self.alice)
        docx_without_document = io.BytesIO()
        with zipfile.ZipFile(docx_without_document, "w") as zf:
            zf.writestr("hello.txt", "not a word document")
        cases = {
            "program.exe": b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 200,
            "bild.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 200,
            "trasig.pdf": b"%PDF-1.7\n this is not really a pdf \x00\x01\x02",
            "inte-pdf.pdf": b"Just some text pretending to be a PDF.",
            "trasig.docx": b"PK\x03\x04 broken zip",
            "fel-innehall.docx": docx_without_document.getvalue(),
            "binar.txt": bytes(range(256)) * 4,
            "tom.html": b"<html><head><title></title></head><body><script>x()</script></body></html>",
        }
        for name, data in cases.items():
            with self.subTest(name=name):
                response = self.post_file(name, data)
                self.assertEqual(response.status_code, 201, response.content)
                file_id = response.json()["id"]
                result = chunk_document("USER_FILE", file_id)
                self.assertTrue(result.failed, name)
                body = self.client.get(f"{WS}/files/{file_id}/").json()
                self.assertEqual(body["status"], "failed")
                self.assertTrue(any(hint in body["error_message"] for hint in SWEDISH_HINTS), body["error_message"])
                self.assertEqual(body["progress"]["percent"], 0)
        self.assertEqual(self.client.get(f"{WS}/files/?status=failed").json()["count"], len(cases))

    def test_download_of_missing_stored_file_is_404(self) -> None:
        self.auth(self.alice)
        assert_error(self, self.client.get(f"{WS}/files/{self.alice_file.pk}/download/"), 404)
