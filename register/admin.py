"""Admin for the register. Scoped like compliance's admin: a superuser sees every workspace, other staff only
the workspaces they are members of (their rows and the choices in every form). Changes made here are
recorded in the audit trail with the staff member as actor. A closed review, and its ratings, are read-only:
it keeps what it froze. The audit trail itself is read-only (django-auditlog's LogEntry admin, scoped here)."""

from __future__ import annotations

from typing import Any

from auditlog.admin import LogEntryAdmin
from auditlog.models import LogEntry
from django.contrib import admin
from django.db.models import ForeignKey, ManyToManyField, Model, QuerySet
from django.forms import Field, ModelForm
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.timezone import localtime

from compliance.audit import audit_actor
from compliance.admin import WorkspaceScopedAdmin
from compliance.models import Assessment, UserFile, Workspace
from compliance.selectors import workspace_list_for_user

from . import selectors
from .models import (
    Action,
    Evidence,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
    Review,
    ReviewEntry,
)

# Foreign keys to these models offer only the staff member's workspaces' rows, by this path to the workspace.
SCOPED_CHOICES = {Workspace: "pk", LegalRegister: "workspace", RegisterGroup: "register__workspace",
                  RegisterItem: "workspace", Requirement: "workspace", Evidence: "workspace", Review: "workspace",
                  ReviewEntry: "review__workspace", UserFile: "workspace", Assessment: "workspace"}
HISTORY_ROWS = 50


class RegisterAdmin(WorkspaceScopedAdmin):
    """Scoped rows and choices; every save and delete recorded with the staff member as actor."""

    def _scope(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        lookup = SCOPED_CHOICES.get(queryset.model)
        if request.user.is_superuser or lookup is None:
            return queryset
        return queryset.filter(**{f"{lookup}__in": workspace_list_for_user(request.user).values("pk")})

    def formfield_for_foreignkey(self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any) -> Field | None:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if field is not None and hasattr(field, "queryset"):
            field.queryset = self._scope(request, field.queryset)
        return field

    def formfield_for_manytomany(self, db_field: ManyToManyField, request: HttpRequest, **kwargs: Any) -> Field | None:
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        if field is not None and hasattr(field, "queryset"):
            field.queryset = self._scope(request, field.queryset)
        return field

    def save_model(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool) -> None:
        with audit_actor(request.user):
            super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: ModelForm, formsets: list[BaseInlineFormSet],
                     change: bool) -> None:
        with audit_actor(request.user):
            super().save_related(request, form, formsets, change)

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        with audit_actor(request.user):
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        with audit_actor(request.user):
            super().delete_queryset(request, queryset)


class GroupInline(admin.TabularInline):
    model = RegisterGroup
    extra = 0


@admin.register(LegalRegister)
class LegalRegisterAdmin(RegisterAdmin):
    list_display = ("name", "workspace", "created_at")
    list_filter = ("workspace",)
    search_fields = ("name", "workspace__name")
    readonly_fields = ("created_by", "created_at", "updated_at")
    inlines = [GroupInline]


@admin.register(RegisterGroup)
class RegisterGroupAdmin(RegisterAdmin):
    workspace_lookup = "register__workspace"
    list_display = ("name", "register", "position")
    search_fields = ("name", "register__name")


class RequirementInline(admin.TabularInline):
    model = Requirement
    extra = 0
    fields = ("section_ref", "title", "status", "owner", "needs_evidence", "due_date")
    show_change_link = True
    fk_name = "item"


@admin.register(RegisterItem)
class RegisterItemAdmin(RegisterAdmin):
    list_display = ("display_title", "register", "group", "status", "responsible", "last_reviewed_at",
                    "next_review_date", "needs_reassessment")
    list_filter = ("status", "needs_reassessment", "origin", "legal_document__content_type")
    search_fields = ("title", "legal_document__title", "legal_document__sfs_number", "register__name")
    list_select_related = ("legal_document", "register", "group", "responsible")
    autocomplete_fields = ("legal_document",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[RegisterItem]:
        # A row names its document; a hundred rows of statutes' full texts would be tens of megabytes per page.
        return super().get_queryset(request).defer(*selectors.without_text("legal_document"))
    readonly_fields = ("workspace", "origin", "last_reviewed_at", "last_reviewed_by", "created_by", "created_at",
                       "updated_at", "history")
    inlines = [RequirementInline]

    def save_model(self, request: HttpRequest, obj: RegisterItem, form: ModelForm, change: bool) -> None:
        # The item's workspace is its register's (denormalised for scoped reads).
        obj.workspace_id = obj.register.workspace_id
        super().save_model(request, obj, form, change)

    def save_formset(self, request: HttpRequest, form: ModelForm, formset: BaseInlineFormSet, change: bool) -> None:
        instances = formset.save(commit=False)
        for instance in instances:
            if isinstance(instance, Requirement):
                instance.workspace_id = form.instance.workspace_id
        with audit_actor(request.user):
            for instance in instances:
                instance.save()
            for obj in formset.deleted_objects:
                obj.delete()
            formset.save_m2m()

    @admin.display(description="Historik")
    def history(self, item: RegisterItem) -> str:
        """The item's audit trail, newest first, read-only: who, when, what, before and after."""
        if item.pk is None:
            return "–"
        entries = selectors.audit_trail(item.workspace, item=item)[:HISTORY_ROWS]
        rows = selectors.audit_rows(entries, workspace=item.workspace, may_see_private=True)
        if not rows:
            return "Inga ändringar registrerade."
        body = format_html_join(
            "", "<tr><td><a href='{}'>{}</a></td><td>{}</td><td>{} {}</td><td>{}</td></tr>",
            ((reverse("admin:auditlog_logentry_change", args=[row.id]),
              localtime(row.timestamp).strftime("%Y-%m-%d %H:%M"), row.actor_name, row.model_label,
              row.action_label, "; ".join(f"{field}: {_pair(change)}" for field, change in row.changes.items()))
             for row in rows))
        return format_html("<table><thead><tr><th>När</th><th>Vem</th><th>Vad</th><th>Före → efter</th></tr>"
                           "</thead><tbody>{}</tbody></table>", body)


def _pair(change: Any) -> str:
    if isinstance(change, list) and len(change) == 2:
        return f"{change[0]} → {change[1]}"
    return str(change)


class EvidenceInline(admin.TabularInline):
    model = Evidence
    extra = 0
    fields = ("kind", "user_file", "assessment", "reference", "note")
    raw_id_fields = ("user_file", "assessment")


@admin.register(Requirement)
class RequirementAdmin(RegisterAdmin):
    list_display = ("__str__", "item", "status", "owner", "needs_evidence", "due_date")
    list_filter = ("status", "needs_evidence")
    search_fields = ("title", "section_ref", "item__title", "item__legal_document__title")
    readonly_fields = ("workspace", "assessment", "created_at", "updated_at")
    raw_id_fields = ("item",)
    inlines = [EvidenceInline]

    def save_model(self, request: HttpRequest, obj: Requirement, form: ModelForm, change: bool) -> None:
        obj.workspace_id = obj.item.workspace_id
        super().save_model(request, obj, form, change)

    def save_formset(self, request: HttpRequest, form: ModelForm, formset: BaseInlineFormSet, change: bool) -> None:
        instances = formset.save(commit=False)
        with audit_actor(request.user):
            for instance in instances:
                instance.workspace_id = form.instance.workspace_id
                instance.added_by = instance.added_by or request.user
                instance.save()
            for obj in formset.deleted_objects:
                obj.delete()
            formset.save_m2m()


@admin.register(Evidence)
class EvidenceAdmin(RegisterAdmin):
    list_display = ("__str__", "kind", "requirement", "added_by", "created_at")
    list_filter = ("kind",)
    search_fields = ("reference", "note", "user_file__title", "requirement__title")
    readonly_fields = ("workspace", "added_by", "created_at")
    raw_id_fields = ("requirement", "user_file", "assessment")

    def save_model(self, request: HttpRequest, obj: Evidence, form: ModelForm, change: bool) -> None:
        obj.workspace_id = obj.requirement.workspace_id
        if not change:
            obj.added_by = request.user
        super().save_model(request, obj, form, change)


class ClosedReadOnlyMixin:
    """A closed review keeps what it froze: neither it nor its ratings change or go in admin."""

    def _closed(self, obj: Review | ReviewEntry) -> bool:
        review = obj.review if isinstance(obj, ReviewEntry) else obj
        return review is not None and getattr(review, "is_closed", False)

    def has_change_permission(self, request: HttpRequest, obj: Review | ReviewEntry | None = None) -> bool:
        return super().has_change_permission(request, obj) and not (obj is not None and self._closed(obj))

    def has_delete_permission(self, request: HttpRequest, obj: Review | ReviewEntry | None = None) -> bool:
        return super().has_delete_permission(request, obj) and not (obj is not None and self._closed(obj))


class ReviewEntryInline(ClosedReadOnlyMixin, admin.TabularInline):
    model = ReviewEntry
    extra = 0
    fields = ("item", "rating", "justification", "assessed_by", "assessed_at", "frozen_version")
    readonly_fields = ("item", "assessed_by", "assessed_at", "frozen_version")
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Review | None = None) -> bool:
        return False  # entries come from starting the review (register.services.review_start)


@admin.register(Review)
class ReviewAdmin(ClosedReadOnlyMixin, RegisterAdmin):
    list_display = ("title", "register", "state", "lead", "due_date", "started_at", "closed_at")
    list_filter = ("state",)
    search_fields = ("title", "register__name")
    readonly_fields = ("workspace", "state", "started_by", "started_at", "closed_at", "closed_by", "as_of")
    inlines = [ReviewEntryInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a review starts with its entries: register.services.review_start


@admin.register(ReviewEntry)
class ReviewEntryAdmin(ClosedReadOnlyMixin, RegisterAdmin):
    workspace_lookup = "review__workspace"
    list_display = ("__str__", "review", "rating", "assessed_by", "assessed_at")
    list_filter = ("rating",)
    search_fields = ("frozen_title", "item__title", "item__legal_document__title", "review__title")
    readonly_fields = ("review", "item", "assessed_by", "assessed_at", "frozen_title", "frozen_document_number",
                       "frozen_document_kind", "frozen_version", "frozen_version_id", "frozen_requirements",
                       "frozen_evidence", "frozen_assessor")
    filter_horizontal = ("evidence",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Action)
class ActionAdmin(RegisterAdmin):
    list_display = ("title", "item", "owner", "due_date", "state", "created_at")
    list_filter = ("state",)
    search_fields = ("title", "description", "item__title", "item__legal_document__title")
    readonly_fields = ("review_entry", "created_by", "created_at", "closed_at", "closed_by")
    raw_id_fields = ("item", "requirement")


# django-auditlog's LogEntry admin is read-only (no add, no change, no delete from its own pages); scoped here
# like the rest, so a staff member reads only the trail of their own workspaces.
admin.site.unregister(LogEntry)


@admin.register(LogEntry)
class ScopedLogEntryAdmin(LogEntryAdmin):
    def get_queryset(self, request: HttpRequest) -> QuerySet[LogEntry]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        visible = list(workspace_list_for_user(request.user).values_list("pk", flat=True))
        return queryset.filter(additional_data__workspace_id__in=visible)
