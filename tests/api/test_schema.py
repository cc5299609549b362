from __future__ import annotations

from django.core.management import call_command

from .base import API, ApiTestCase


class SchemaTests(ApiTestCase):
    def test_schema_validates_without_warnings(self) -> None:
        # Raises SchemaGenerationError on any warning, CommandError on an invalid schema.
        call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")

    def test_schema_and_docs_are_served(self) -> None:
        schema = self.client.get(f"{API}/schema/?format=json").json()
        self.assertEqual(schema["info"]["title"], "Lagrum API")
        paths = schema["paths"]
        search = paths["/api/v1/workspaces/{slug}/search"]["post"]
        self.assertIn("examples", search["requestBody"]["content"]["application/json"])
        self.assertIn("examples", search["responses"]["200"]["content"]["application/json"])
        messages = paths["/api/v1/workspaces/{slug}/conversations/{conversation_id}/messages"]["post"]
        self.assertIn("examples", messages["requestBody"]["content"]["application/json"])
        self.assertIn("text/event-stream", messages["responses"]["200"]["content"])
        for path, operations in paths.items():
            for method, operation in operations.items():
                with self.subTest(path=path, method=method):
                    self.assertEqual(operation["responses"]["404"]["content"]["application/json"]["schema"],
                                     {"$ref": "#/components/schemas/Error"})
        self.assertEqual(schema["components"]["securitySchemes"]["ApiToken"]["scheme"], "bearer")
        self.assertEqual(self.client.get(f"{API}/docs/").status_code, 200)
