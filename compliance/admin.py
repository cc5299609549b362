"""Django admin for the domain. Computed fields are read-only; actions re-process."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.timezone import localtime

from chunks.tasks import reembed_sources
from law.selectors import statute_book_progress

from . import services
from .errors import ApplicationError
from .models import (
    PROFILE_FIELDS,
    ApiToken,
    Assessment,
    LegalDocument,
    Membership,
    PersonalPreference,
    ProcessedSource,
    ProfileFact,
    UserFile,
    Workspace,
    WorkspaceProfile,
)
from .selectors import user_file_versions, workspace_list_for_user

PROCESSING_READONLY = ("status", "error_message", "content_hash", "chunked_hash", "chunks_total",
                       "chunks_embedded", "progress", "processed_at", "created_at", "updated_at")


def progress_bar(obj: ProcessedSource) -> str:
    pct = obj.progress_percent
    return format_html('<progress max="100" value="{}"></progress> {} / {} ({}%)',
                       pct, obj.chunks_embedded, obj.chunks_total, pct)


class WorkspaceScopedAdmin(admin.ModelAdmin):
    """Workspace data in admin follows the same rule as everywhere else.

    Superusers operate the service and see every workspace. Any other staff
    member (who also needs Django's model permissions to see a page at all)
    sees only the workspaces they are a member of, decided by the same
    selector as the web pages and the API; another workspace's rows are not
    listed and their change pages are a 404.
    """

    workspace_lookup = "workspace"  # the path from the model to its Workspace

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        visible = workspace_list_for_user(request.user).values("pk")
        if self.workspace_lookup == "pk":
            return qs.filter(pk__in=visible)
        return qs.filter(**{f"{self.workspace_lookup}__in": visible})


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Workspace)
class WorkspaceAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "pk"
    list_display = ("name", "slug", "member_count", "created_at")
    search_fields = ("name", "slug")
    readonly_fields = ("created_at", "knowledge_version")
    inlines = [MembershipInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Workspace]:
        return super().get_queryset(request).annotate(n_members=Count("memberships"))

    @admin.display(description="medlemmar", ordering="n_members")
    def member_count(self, obj: Workspace) -> int:
        return obj.n_members


@admin.register(Membership)
class MembershipAdmin(WorkspaceScopedAdmin):
    list_display = ("user", "workspace", "role", "created_at")
    list_filter = ("role", "workspace")
    search_fields = ("user__username", "user__email", "workspace__name")
    autocomplete_fields = ["user", "workspace"]


class ProcessedSourceAdmin(WorkspaceScopedAdmin):
    """Progress column and re-process / re-embed actions shared by every knowledge source."""

    actions = ["reprocess", "reembed"]
    reprocess_service = None  # a services.<entity>_reprocess function
    reembed_kwarg = ""  # which id list reembed_sources takes

    def get_readonly_fields(self, request: HttpRequest,
                            obj: ProcessedSource | None = None) -> list[str] | tuple[str, ...]:
        # A saved source's chunks carry its workspace: moving it here would leave them searchable where it was.
        fields = super().get_readonly_fields(request, obj)
        return (*fields, "workspace") if obj is not None and hasattr(obj, "workspace_id") else fields

    @admin.display(description="inbäddning")
    def progress(self, obj: ProcessedSource) -> str:
        return progress_bar(obj)

    @admin.action(description="Bearbeta om markerade")
    def reprocess(self, request: HttpRequest, queryset: QuerySet[ProcessedSource]) -> None:
        for obj in queryset:
            type(self).reprocess_service(obj)
        self.message_user(request, f"{queryset.count()} köade för bearbetning.", messages.SUCCESS)

    @admin.action(description="Bädda in markerade på nytt")
    def reembed(self, request: HttpRequest, queryset: QuerySet[ProcessedSource]) -> None:
        n = reembed_sources(**{self.reembed_kwarg: list(queryset.values_list("pk", flat=True))})
        self.message_user(request, f"{n} textavsnitt köade för inbäddning.", messages.SUCCESS)


@admin.register(LegalDocument)
class LegalDocumentAdmin(ProcessedSourceAdmin):
    list_display = ("sfs_number", "title", "content_type", "series", "status", "progress", "amended_through",
                    "cited_by")
    list_filter = ("content_type", "series", "agency", "status", "category")
    search_fields = ("sfs_number", "title", "short_names", "abbreviations", "agency", "addressee")
    # Derived from the corpus at every load (law.citations, law.addressees), never typed in.
    readonly_fields = (*PROCESSING_READONLY, "cited_by", "addressee", "details_sfs")
    reprocess_service = services.legal_document_reprocess
    reembed_kwarg = "legal_document_ids"

    def get_queryset(self, request: HttpRequest) -> QuerySet[LegalDocument]:
        # Statutes are shared: every staff member with the permission sees them all.
        return admin.ModelAdmin.get_queryset(self, request)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # The statute book loads in the background after start-up (load_sfs --book): say how far it is.
        book = statute_book_progress()
        if book is not None and book.state != "done":
            left = f", cirka {max(1, round(book.eta_seconds / 60))} min kvar" if book.eta_seconds is not None else ""
            what = "läses in" if book.loading else "avbröts (fortsätter vid nästa start)"
            self.message_user(request, f"Författningsboken {what}: {book.done} av {book.total} "
                                       f"({book.percent:.0f} %){left}.", messages.INFO)
        elif book is not None and book.failed:
            self.message_user(request, f"Författningsboken inläst: {book.failed} av {book.total} kunde inte läsas in "
                                       "(se utskriften från load_sfs).", messages.WARNING)
        return super().changelist_view(request, extra_context)


@admin.register(UserFile)
class UserFileAdmin(ProcessedSourceAdmin):
    list_display = ("title", "workspace", "original_name", "version", "version_state", "size", "is_private",
                    "status", "progress", "deleted_at")
    list_filter = ("status", "version_state", "is_private", "workspace", ("deleted_at", admin.EmptyFieldListFilter))
    search_fields = ("title", "original_name", "workspace__name")
    readonly_fields = PROCESSING_READONLY + ("size", "mime_type", "page_count", "uploaded_by", "version",
                                             "version_of", "version_state", "version_history")
    actions = ["reprocess", "reembed", "restore_version"]
    reprocess_service = services.user_file_reprocess
    reembed_kwarg = "user_file_ids"

    @admin.display(description="versionshistorik")
    def version_history(self, obj: UserFile) -> str:
        # The versions of a file this admin may open: the same workspace, so the same scope.
        return format_html_join(
            "", '<div><a href="{}">Version {}</a> – {} – {} – {}</div>',
            ((reverse("admin:compliance_userfile_change", args=[v.pk]), v.version, v.get_version_state_display(),
              v.original_name, localtime(v.created_at).strftime("%Y-%m-%d %H:%M")) for v in user_file_versions(obj)),
        )

    @admin.action(description="Återställ markerad version (gör den till nuvarande version)")
    def restore_version(self, request: HttpRequest, queryset: QuerySet[UserFile]) -> None:
        for version in queryset:
            try:
                services.user_file_version_restore(version)
            except ApplicationError as exc:
                self.message_user(request, f"{version}: {exc.message}", messages.ERROR)
            else:
                self.message_user(request, f"{version}: version {version.version} är nu nuvarande version.",
                                  messages.SUCCESS)


@admin.register(Assessment)
class AssessmentAdmin(ProcessedSourceAdmin):
    list_display = ("title", "workspace", "legal_document", "section_ref", "compliance_status", "owner",
                     "due_date", "status", "deleted_at")
    list_filter = ("compliance_status", "status", "workspace", ("deleted_at", admin.EmptyFieldListFilter))
    search_fields = ("title", "notes", "section_ref", "legal_document__sfs_number")
    readonly_fields = PROCESSING_READONLY
    autocomplete_fields = ["legal_document", "owner"]
    actions = ["reembed"]
    reembed_kwarg = "assessment_ids"

    def save_model(self, request: HttpRequest, obj: Assessment, form: forms.ModelForm, change: bool) -> None:
        fields = {name: getattr(obj, name) for name in services.ASSESSMENT_FIELDS}
        services.assessment_save(workspace=obj.workspace, user=request.user,
                                 assessment=obj if change else None, **fields)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("prefix", "key_hash", "created_at", "last_used_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[ApiToken]:
        # A token belongs to one person: staff who do not operate the service see only their own.
        qs = super().get_queryset(request)
        return qs if request.user.is_superuser else qs.filter(user=request.user)


@admin.register(WorkspaceProfile)
class WorkspaceProfileAdmin(WorkspaceScopedAdmin):
    list_display = ("workspace", "employee_count", "sector", "has_collective_agreement", "updated_at")
    search_fields = ("workspace__name", "workspace__slug")
    readonly_fields = ("workspace", "origins", "revision", "updated_at")

    def save_model(self, request: HttpRequest, obj: WorkspaceProfile, form: forms.ModelForm, change: bool) -> None:
        # Through the service: the same validation, origin and revision as the settings page.
        services.profile_update(workspace=obj.workspace, user=request.user,
                                values={name: form.cleaned_data.get(name) for name in PROFILE_FIELDS
                                        if name in form.changed_data})


@admin.register(ProfileFact)
class ProfileFactAdmin(WorkspaceScopedAdmin):
    list_display = ("text", "workspace", "origin", "conversation_id", "created_at")
    list_filter = ("origin",)
    search_fields = ("text", "workspace__name")
    readonly_fields = ("workspace", "origin", "conversation_id", "created_by", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(PersonalPreference)
class PersonalPreferenceAdmin(admin.ModelAdmin):
    """Read-only: a member's own wishes are theirs to change (on the settings page or the API)."""

    list_display = ("user", "workspace", "role", "expertise", "answer_length", "tone", "language", "updated_at")
    search_fields = ("user__username", "workspace__name")
    readonly_fields = ("user", "workspace", "role", "expertise", "answer_length", "tone", "language", "origins",
                       "revision", "updated_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[PersonalPreference]:
        # Personal: staff who do not operate the service see only their own.
        qs = super().get_queryset(request)
        return qs if request.user.is_superuser else qs.filter(user=request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: PersonalPreference | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: PersonalPreference | None = None) -> bool:
        return False
