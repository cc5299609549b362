"""Versions of files through the API: duplicates, new versions, history, download, restore."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse

from chunks.services import chunk_document
from compliance.models import Membership, UserFile
from tests.helpers import make_member

from .base import CWS, WS, ApiTestCase, assert_error

MARCH = "Rapporten lämnas senast den 1 mars.\n".encode()
APRIL = "Rapporten lämnas senast den 15 april.\n".encode()


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/plain")


class FileVersionApiTests(ApiTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.auth(self.bob)
        response = self.client.post(f"{WS}/files/", {"file": upload("rapport.txt", MARCH)}, format="multipart")
        self.assertEqual(response.status_code, 201, response.content)
        self.v1 = response.json()
        chunk_document("USER_FILE", self.v1["id"])

    def new_version(self, data: bytes = APRIL, name: str = "rapport.txt", file_id: int | None = None) -> HttpResponse:
        return self.client.post(f"{WS}/files/{file_id or self.v1['id']}/versions/", {"file": upload(name, data)},
                                format="multipart")

    def test_identical_upload_is_a_structured_409_naming_the_existing_file(self) -> None:
        error = assert_error(self, self.client.post(f"{WS}/files/", {"file": upload("kopia.txt", MARCH)},
                                                    format="multipart"), 409, "duplicate_file")
        self.assertEqual(error["message"], "Filen finns redan: rapport.txt")
        self.assertEqual(error["details"], {"file_id": self.v1["id"]})
        self.assertFalse(UserFile.objects.filter(original_name="kopia.txt").exists())
        assert_error(self, self.new_version(MARCH), 409, "duplicate_file")

    def test_same_name_upload_is_version_two_and_detail_shows_the_history(self) -> None:
        self.assertEqual((self.v1["version"], self.v1["is_current"]), (1, True))
        response = self.client.post(f"{WS}/files/", {"file": upload("rapport.txt", APRIL)}, format="multipart")
        self.assertEqual(response.status_code, 201, response.content)
        v2 = response.json()
        self.assertEqual((v2["version"], v2["version_state"], v2["is_current"]), (2, "pending", False))
        chunk_document("USER_FILE", v2["id"])
        detail = self.client.get(f"{WS}/files/{v2['id']}/").json()
        self.assertEqual((detail["version"], detail["is_current"]), (2, True))
        self.assertEqual([(v["version"], v["is_current"], v["uploaded_by"]) for v in detail["versions"]],
                         [(2, True, "bob"), (1, False, "bob")])
        self.assertEqual([f["id"] for f in self.client.get(f"{WS}/files/").json()["results"]
                          if f["original_name"] == "rapport.txt"], [v2["id"]])

    def test_new_version_list_download_and_restore(self) -> None:
        response = self.new_version()
        self.assertEqual(response.status_code, 201, response.content)
        v2 = response.json()
        chunk_document("USER_FILE", v2["id"])
        listed = self.client.get(f"{WS}/files/{self.v1['id']}/versions/").json()
        self.assertEqual([(v["version"], v["size"]) for v in listed], [(2, len(APRIL)), (1, len(MARCH))])
        download = self.client.get(f"{WS}/files/{v2['id']}/versions/1/download/")
        self.assertEqual(download.status_code, 200)
        self.assertEqual(b"".join(download.streaming_content), MARCH)
        restored = self.client.post(f"{WS}/files/{v2['id']}/versions/1/restore")
        self.assertEqual(restored.status_code, 200, restored.content)
        self.assertEqual((restored.json()["id"], restored.json()["is_current"]), (self.v1["id"], True))
        assert_error(self, self.client.get(f"{WS}/files/{v2['id']}/versions/9/download/"), 404)

    def test_reader_sees_the_history_but_may_not_restore_or_upload_a_version(self) -> None:
        self.new_version()
        dave = make_member(self.workspace, "dave", Membership.Role.VIEWER)
        self.auth(dave)
        self.assertEqual(len(self.client.get(f"{WS}/files/{self.v1['id']}/versions/").json()), 2)
        assert_error(self, self.client.post(f"{WS}/files/{self.v1['id']}/versions/1/restore"), 403)
        assert_error(self, self.new_version(b"Annat.\n"), 403)

    def test_it_checks_ownership(self) -> None:
        self.new_version()
        self.auth(self.charlie)
        fid = self.v1["id"]
        for response in (self.client.get(f"{CWS}/files/{fid}/versions/"),
                         self.client.get(f"{CWS}/files/{fid}/versions/1/download/"),
                         self.client.post(f"{CWS}/files/{fid}/versions/1/restore"),
                         self.client.post(f"{CWS}/files/{fid}/versions/", {"file": upload("x.txt", b"x")},
                                          format="multipart"),
                         self.client.get(f"{WS}/files/{fid}/versions/")):
            assert_error(self, response, 404)
        # charlie's identical file is his own business: his upload succeeds and reveals nothing of alice's.
        response = self.client.post(f"{CWS}/files/", {"file": upload("rapport.txt", MARCH)}, format="multipart")
        self.assertEqual((response.status_code, response.json()["version"]), (201, 1))

    def test_schema_documents_the_version_endpoints(self) -> None:
        schema = self.client.get("/api/v1/schema/?format=json").json()
        paths = schema["paths"]
        base = "/api/v1/workspaces/{slug}/files/{file_id}/versions/"
        self.assertIn("post", paths[base])
        self.assertIn("get", paths[base])
        self.assertIn(base + "{number}/download/", paths)
        self.assertIn(base + "{number}/restore", paths)
