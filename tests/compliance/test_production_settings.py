"""Production settings: secure by default when DEBUG is false, and a Content-Security-Policy
that the pages satisfy without inline scripts, styles or event handlers."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.urls import reverse

from compliance.models import LegalDocument, ProcessingStatus, UserFile
from tests.helpers import BaseTestCase

ROOT = Path(__file__).resolve().parents[2]
SECURITY_SETTINGS = ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS",
                     "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER")


def production_env(**overrides: str) -> dict:
    # DJANGO_ALLOW_ASYNC_UNSAFE is the browser tests' own, set in this process: no deployment has it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECURE_") and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(DJANGO_SETTINGS_MODULE="compliance.settings", DEBUG="false", SECRET_KEY=secrets.token_urlsafe(50))
    env.update(overrides)
    return env


def security_settings(**env: str) -> dict:
    code = ("import django, json; django.setup(); from django.conf import settings; "
            f"print(json.dumps({{k: getattr(settings, k) for k in {SECURITY_SETTINGS!r}}}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_deploy_check_passes_with_production_settings() -> None:
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=ROOT,
                            env=production_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]


def test_production_is_secure_by_default() -> None:
    values = security_settings(**production_env())
    assert values["SECURE_SSL_REDIRECT"] and values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["SECURE_HSTS_SECONDS"] >= 31536000 and values["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
    assert values["SECURE_PROXY_SSL_HEADER"] is None


def test_production_values_can_be_overridden_from_the_environment() -> None:
    values = security_settings(**production_env(SECURE_SSL_REDIRECT="false", SECURE_HSTS_SECONDS="0",
                                                SECURE_PROXY_SSL_HEADER="HTTP_X_FORWARDED_PROTO"))
    assert values["SECURE_SSL_REDIRECT"] is False and values["SECURE_HSTS_SECONDS"] == 0
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert values["SESSION_COOKIE_SECURE"] is True


def test_development_stays_on_plain_http() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECURE_") and k not in ("DEBUG", "SECRET_KEY")}
    env["DJANGO_SETTINGS_MODULE"] = "compliance.settings"
    values = security_settings(**env)
    assert not values["SECURE_SSL_REDIRECT"] and not values["SESSION_COOKIE_SECURE"]
    assert values["SECURE_HSTS_SECONDS"] == 0


def test_make_test_runs_the_deploy_check() -> None:
    makefile = (ROOT / "Makefile").read_text()
    target = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "check --deploy --fail-level WARNING" in target and "DEBUG=false" in target


class InlineCode(HTMLParser):
    """Collects what a CSP without 'unsafe-inline' would block."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "script" and "src" not in names:
            self._in_script = True
        if tag == "style":
            self.found.append("<style>")
        for name in names:
            if name == "style" or name.startswith("on") or name.startswith("hx-on"):
                self.found.append(f"<{tag} {name}=…>")

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.found.append(f"inline <script>: {data.strip()[:60]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False


class ContentSecurityPolicyTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.admin = get_user_model().objects.create_superuser("admin", "admin@example.se", "pw")
        cls.doc = LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)",
                                               full_text="1 § Text.", status=ProcessingStatus.DONE)
        cls.file = UserFile.objects.create(workspace=cls.workspace, title="Policy", original_name="p.txt",
                                           file="p.txt", status=ProcessingStatus.PROCESSING)

    def assert_no_inline_code(self, url: str) -> HttpResponse:
        response = self.client.get(url)
        self.assertEqual(response.status_code, 200, url)
        parser = InlineCode()
        parser.feed(response.content.decode())
        self.assertEqual(parser.found, [], url)
        return response

    def test_every_page_has_a_strict_policy(self) -> None:
        response = self.client.get(reverse("login"))
        policy = response.headers["Content-Security-Policy"]
        directives = {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}
        self.assertEqual(directives["default-src"], ["'self'"])
        self.assertEqual(directives["script-src"], ["'self'"])
        self.assertEqual(directives["style-src"], ["'self'"])
        self.assertEqual(directives["object-src"], ["'none'"])
        self.assertEqual(directives["frame-ancestors"], ["'none'"])
        self.assertNotIn("unsafe-inline", policy)
        self.assertNotIn("unsafe-eval", policy)

    def test_pages_carry_no_inline_scripts_styles_or_handlers(self) -> None:
        self.assert_no_inline_code(reverse("login"))
        self.login(self.alice)
        slug = self.workspace.slug
        for url in (reverse("workspace", args=[slug]), reverse("knowledge", args=[slug]),
                    reverse("knowledge_status", args=[slug]), reverse("chat", args=[slug]),
                    reverse("file_detail", args=[slug, self.file.pk]), reverse("statute_list"),
                    reverse("statute", args=["1977:1160"]), reverse("assessment_create", args=[slug])):
            response = self.assert_no_inline_code(url)
            self.assertIn("Content-Security-Policy", response.headers)
        self.login(self.admin)
        for url in (reverse("admin:index"), reverse("admin:compliance_userfile_changelist"),
                    reverse("admin:axes_accessattempt_changelist")):
            self.assert_no_inline_code(url)

    def test_htmx_is_told_not_to_inject_its_indicator_style(self) -> None:
        self.login(self.alice)
        page = self.client.get(reverse("knowledge", args=[self.workspace.slug])).content.decode()
        self.assertIn('name="htmx-config"', page)
        self.assertIn('"includeIndicatorStyles": false', page)

    def test_api_docs_load_their_script_from_a_file(self) -> None:
        self.login(self.alice)
        response = self.assert_no_inline_code("/api/v1/docs/")
        policy = response.headers["Content-Security-Policy"]
        self.assertIn("https://cdn.jsdelivr.net", policy.split("script-src")[1].split(";")[0])
        self.assertNotIn("unsafe-inline", policy)
        script = self.client.get("/api/v1/docs/?script=")
        self.assertEqual(script.status_code, 200)
        self.assertIn("SwaggerUIBundle", script.content.decode())
