"""Admin for the register: every model registered and scoped to the staff member's workspaces, the item's
"Historik", closed reviews read-only, the audit trail read-only and scoped."""

from __future__ import annotations

from auditlog.models import LogEntry
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.urls import reverse

from register import services
from register.models import (
    Action,
    Evidence,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
    Review,
    ReviewEntry,
)
from tests.helpers import make_user

from .base import RegisterTestCase


class RegisterAdminTests(RegisterTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.register = self.make_register()
        self.item = self.make_item(self.register, responsible=self.bob)
        self.requirement = self.make_requirement(self.item)
        services.register_item_update(item=self.item, user=self.bob, data={"status": "partial",
                                                                           "how_we_comply": "Rutin R1"})
        charlies = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="Charlies lista")
        self.charlies_item = services.register_item_add(register=charlies, user=self.charlie,
                                                        legal_document=self.gdpr).item
        self.root = make_user("root")
        self.root.is_staff = self.root.is_superuser = True
        self.root.save()
        # A staff member who is a member of Alices AB only, with every permission on the register and the trail.
        self.bob.is_staff = True
        self.bob.save()
        self.bob.user_permissions.set(Permission.objects.filter(content_type__app_label__in=["register", "auditlog"]))

    def test_every_register_model_and_the_trail_are_registered(self) -> None:
        for model in (LegalRegister, RegisterGroup, RegisterItem, Requirement, Evidence, Review, ReviewEntry, Action,
                      LogEntry):
            with self.subTest(model=model.__name__):
                self.assertTrue(admin.site.is_registered(model))

    def test_item_page_shows_its_history(self) -> None:
        self.login(self.root)
        response = self.client.get(reverse("admin:register_registeritem_change", args=[self.item.pk]))
        self.assertContains(response, "Historik")
        self.assertContains(response, "not_assessed → partial")
        self.assertContains(response, " → Rutin R1")
        self.assertContains(response, reverse("admin:auditlog_logentry_changelist"))

    def test_staff_see_only_their_workspaces(self) -> None:
        self.login(self.bob)
        listing = self.client.get(reverse("admin:register_registeritem_changelist"))
        self.assertContains(listing, "Arbetsmiljölag")
        self.assertNotContains(listing, "Dataskyddsförordningen")
        self.assertEqual(self.client.get(reverse("admin:register_registeritem_change",
                                                 args=[self.charlies_item.pk])).status_code, 302)
        trail = self.client.get(reverse("admin:auditlog_logentry_changelist"))
        self.assertContains(trail, "Arbetsmiljölag")
        self.assertNotContains(trail, "Charlies lista")
        # The choices of a form are the staff member's workspaces' rows only.
        page = self.client.get(reverse("admin:register_action_add"))
        self.assertContains(page, "Alices AB")
        self.assertNotContains(page, "Charlies AB")

    def test_admin_changes_are_recorded_with_the_staff_member(self) -> None:
        self.login(self.root)
        url = reverse("admin:register_action_add")
        response = self.client.post(url, {"workspace": self.workspace.pk, "title": "Från admin", "state": "open",
                                          "description": "", "due_date": ""})
        self.assertEqual(response.status_code, 302, response.content[:2000])
        action = Action.objects.get(title="Från admin")
        self.assertEqual(LogEntry.objects.get_for_object(action).get().actor, self.root)

    def test_the_audit_trail_is_read_only(self) -> None:
        self.login(self.root)
        entry = LogEntry.objects.filter(additional_data__workspace_id=self.workspace.pk).first()
        self.assertEqual(self.client.get(reverse("admin:auditlog_logentry_add")).status_code, 403)
        change = reverse("admin:auditlog_logentry_change", args=[entry.pk])
        self.assertEqual(self.client.get(change).status_code, 200)  # readable
        self.client.post(change, {"object_repr": "ändrad"})
        self.assertEqual(self.client.post(reverse("admin:auditlog_logentry_delete", args=[entry.pk]),
                                          {"post": "yes"}).status_code, 403)
        entry.refresh_from_db()
        self.assertNotEqual(entry.object_repr, "ändrad")
        self.assertTrue(LogEntry.objects.filter(pk=entry.pk).exists())

    def test_closed_review_is_read_only(self) -> None:
        review = self.make_closed_review(self.register)
        entry = review.entries.get()
        self.login(self.root)
        page = self.client.get(reverse("admin:register_review_change", args=[review.pk]))
        self.assertEqual(page.status_code, 200)
        self.assertNotContains(page, 'name="_save"')
        self.client.post(reverse("admin:register_review_change", args=[review.pk]),
                         {"title": "Ändrad", "register": self.register.pk, "workspace": self.workspace.pk})
        self.client.post(reverse("admin:register_reviewentry_change", args=[entry.pk]),
                         {"rating": "non_compliant", "justification": "Ändrad"})
        self.assertEqual(self.client.post(reverse("admin:register_review_delete", args=[review.pk]),
                                          {"post": "yes"}).status_code, 403)
        review.refresh_from_db()
        entry.refresh_from_db()
        self.assertEqual((review.title, entry.rating, entry.justification), ("Kontroll 2026", "compliant",
                                                                             "Genomgånget"))
        # An open review is still editable.
        open_review = services.review_start(register=self.register, user=self.alice, title="Öppen")
        page = self.client.get(reverse("admin:register_review_change", args=[open_review.pk]))
        self.assertContains(page, 'name="_save"')
