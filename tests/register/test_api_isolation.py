"""Isolation of the register's API as a property: whatever the caller's role, the route, the workspace in the
URL and the workspace the object ids belong to, a workspace the caller is not a member of and any object of
another workspace answer 404 in the error shape, readers and revisors get 403 on writes, and nothing of the
other workspace changes."""

from __future__ import annotations

from auditlog.models import LogEntry
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from compliance.models import Membership, Workspace
from register import services
from register.models import Action, Evidence, RegisterItem, Requirement, Review
from tests.api.base import assert_error

from .test_api import RegisterApiTestCase

# (method, path under /register/, body, writes). {…} are filled with one workspace's object ids.
ROUTES = [
    ("get", "registers/{register}/", None, False),
    ("get", "registers/{register}/groups/", None, False),
    ("post", "registers/{register}/groups/", {"name": "Ny grupp"}, True),
    ("get", "items/?register={register}", None, False),
    ("get", "items/{item}/", None, False),
    ("patch", "items/{item}/", {"status": "compliant"}, True),
    ("delete", "items/{item}/", None, True),
    ("get", "items/{item}/history/", None, False),
    ("get", "history/?review={review}", None, False),
    ("get", "items/{item}/requirements/", None, False),
    ("post", "items/{item}/requirements/", {"title": "Nytt krav"}, True),
    ("get", "requirements/{requirement}/", None, False),
    ("patch", "requirements/{requirement}/", {"status": "compliant"}, True),
    ("delete", "requirements/{requirement}/", None, True),
    ("get", "requirements/{requirement}/evidence/", None, False),
    ("post", "requirements/{requirement}/evidence/", {"kind": "external", "reference": "Pärm"}, True),
    ("get", "evidence/{evidence}/", None, False),
    ("delete", "evidence/{evidence}/", None, True),
    ("get", "reviews/{review}/", None, False),
    ("get", "reviews/{review}/entries/", None, False),
    ("post", "reviews/{review}/entries/{entry}/rate", {"rating": "non_compliant"}, True),
    ("post", "reviews/{review}/close", None, True),
    ("get", "registers/{register}/export/xlsx", None, False),
    ("get", "registers/{register}/export/csv", None, False),
    ("get", "reviews/{review}/export/pdf", None, False),
    ("post", "registers/{register}/import/confirm", {"token": "x"}, True),
    ("get", "actions/?item={item}", None, False),
    ("get", "actions/{action}/", None, False),
    ("patch", "actions/{action}/", {"state": "done"}, True),
    # Ids in the body: another workspace's are refused like ids that do not exist (400, nothing written).
    ("post", "reviews/", {"register": "{register}", "title": "K"}, True),
    ("post", "items/", {"register": "{register}", "legal_document": "AFS 2023:1"}, True),
    ("post", "actions/", {"title": "Å", "item": "{item}"}, True),
]
ROLES = [None, Membership.Role.OWNER, Membership.Role.EDITOR, Membership.Role.VIEWER, Membership.Role.AUDITOR]


def fill(value: object, ids: dict) -> object:
    if isinstance(value, str):
        if value.startswith("{") and value.endswith("}") and value[1:-1] in ids:
            return ids[value[1:-1]]
        return value.format(**ids)
    if isinstance(value, dict):
        return {k: fill(v, ids) for k, v in value.items()}
    return value


class RegisterApiIsolationTests(HypothesisTestCase, RegisterApiTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.ids = {"alices-ab": cls.world(cls.workspace, cls.alice),
                   "charlies-ab": cls.world(cls.charlies_workspace, cls.charlie)}

    @classmethod
    def world(cls, workspace: Workspace, owner: User) -> dict:
        register = services.register_create(workspace=workspace, user=owner, name="Laglista")
        group = services.register_group_get_or_create(register=register, user=owner, name="Arbetsmiljö")
        item = services.register_item_add(register=register, user=owner, legal_document=cls.aml, group=group).item
        requirement = services.requirement_create(item=item, user=owner, data={"title": "Krav"})
        evidence = services.evidence_add(requirement=requirement, user=owner, kind="external", reference="Pärm")
        review = services.review_start(register=register, user=owner, title="Kontroll")
        action = services.action_create(workspace=workspace, user=owner, title="Åtgärd", item=item)
        return {"register": register.pk, "group": group.pk, "item": item.pk, "requirement": requirement.pk,
                "evidence": evidence.pk, "review": review.pk, "entry": review.entries.get().pk, "action": action.pk}

    def snapshot(self, workspace: Workspace) -> tuple:
        """Everything of a workspace's register a request could change."""
        return (
            LogEntry.objects.filter(additional_data__workspace_id=workspace.pk).count(),
            tuple(RegisterItem.objects.filter(workspace=workspace).order_by("pk").values_list("pk", "status")),
            tuple(Requirement.objects.filter(workspace=workspace).order_by("pk").values_list("pk", "status")),
            Evidence.objects.filter(workspace=workspace).count(),
            tuple(Review.objects.filter(workspace=workspace).order_by("pk").values_list("pk", "state")),
            tuple(Action.objects.filter(workspace=workspace).order_by("pk").values_list("pk", "state")),
        )

    @hsettings(max_examples=120, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(role=st.sampled_from(ROLES), route=st.sampled_from(ROUTES),
           url_workspace=st.sampled_from(["alices-ab", "charlies-ab"]),
           ids_workspace=st.sampled_from(["alices-ab", "charlies-ab"]))
    def test_no_request_reaches_another_workspace(self, role: str | None, route: tuple[str, str, dict | None, bool],
                                                  url_workspace: str, ids_workspace: str) -> None:
        """dave's role in Alices AB varies; he is never a member of Charlies AB."""
        method, template, body, writes = route
        cache.clear()
        with transaction.atomic():
            Membership.objects.filter(user=self.dave, workspace=self.workspace).delete()
            if role is not None:
                Membership.objects.create(user=self.dave, workspace=self.workspace, role=role)
            self.auth(self.dave)
            ids = self.ids[ids_workspace]
            others = [ws for ws in (self.workspace, self.charlies_workspace) if ws.slug != url_workspace]
            untouched = {ws.pk: self.snapshot(ws) for ws in others}
            if ids_workspace != url_workspace:
                untouched[self.workspace.pk if ids_workspace == "alices-ab" else self.charlies_workspace.pk] = \
                    self.snapshot(self.workspace if ids_workspace == "alices-ab" else self.charlies_workspace)
            url = f"/api/v1/workspaces/{url_workspace}/register/{fill(template, ids)}"
            response = getattr(self.client, method)(url, fill(body, ids), format="json")

            member = url_workspace == "alices-ab" and role is not None
            body_ids = body is not None and any(isinstance(v, str) and v.startswith("{") for v in body.values())
            if not member:
                self.assert_error(response, 404, "not_found")
            elif ids_workspace != url_workspace and not body_ids:
                # Another workspace's object in the path: a 404, whatever the role and the method.
                self.assert_error(response, 404, "not_found")
            elif writes and role in (Membership.Role.VIEWER, Membership.Role.AUDITOR):
                self.assert_error(response, 403, "permission_denied")
            elif ids_workspace != url_workspace:
                # Another workspace's id in the body: a 400 on that field, as an id that does not exist.
                error = self.assert_error(response, 400, "invalid")
                self.assertTrue(set(error["details"]) & {"register", "item"}, error)
            elif template.endswith("/close"):
                # The review's entry is unsigned: the close is refused for that, not for access.
                self.assert_error(response, 400, "review_incomplete")
            elif template.startswith("reviews/{review}/export"):
                self.assert_error(response, 409, "review_open")  # an open review is not exported
            elif template.endswith("/import/confirm"):
                self.assert_error(response, 400, "invalid_token")
            else:
                self.assertLess(response.status_code, 300, (url, response.content[:300]))
            for workspace_id, before in untouched.items():
                workspace = self.workspace if workspace_id == self.workspace.pk else self.charlies_workspace
                self.assertEqual(self.snapshot(workspace), before, url)
            transaction.set_rollback(True)

    def assert_error(self, response: HttpResponse, status: int, code: str) -> dict:
        return assert_error(self, response, status, code)
