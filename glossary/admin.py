"""Admin for the glossary. Scoped like the rest: a superuser sees every workspace's terms, other staff only their own
workspaces' (rows and the workspace choices). Every save and delete goes through glossary.services, so admin stores
what the pages store, with the same checks, and the audit trail names the staff member."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import ForeignKey, QuerySet
from django.forms import Field, ModelForm
from django.http import HttpRequest, HttpResponse

from compliance.admin import WorkspaceScopedAdmin
from compliance.selectors import workspace_list_for_user

from . import selectors, services
from .models import Term
from .services import GlossaryError


@admin.register(Term)
class TermAdmin(WorkspaceScopedAdmin):
    list_display = ("word", "law_words", "workspace", "created_by", "updated_at")
    list_select_related = ("workspace", "created_by")
    search_fields = ("word", "law_words", "workspace__name")
    fields = ("workspace", "word", "law_words", "created_by", "created_at", "updated_at")
    readonly_fields = ("created_by", "created_at", "updated_at")

    def get_readonly_fields(self, request: HttpRequest, obj: Term | None = None) -> list[str] | tuple[str, ...]:
        # A term stays in its workspace: term_update changes only the words.
        fields = super().get_readonly_fields(request, obj)
        return (*fields, "workspace") if obj is not None else fields

    def formfield_for_foreignkey(self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any) -> Field | None:
        if db_field.name == "workspace" and not request.user.is_superuser:
            kwargs["queryset"] = workspace_list_for_user(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_form(self, request: HttpRequest, obj: Term | None = None, change: bool = False,
                 **kwargs: Any) -> type[ModelForm]:
        form = super().get_form(request, obj, change, **kwargs)
        refused: GlossaryError | None = getattr(request, "glossary_refused", None)
        if refused is None:
            return form

        class RefusedForm(form):
            """The same form again, invalid with the service's error (see changeform_view)."""

            def clean(self) -> dict[str, Any]:
                cleaned = super().clean()
                self.add_error(refused.field if refused.field in self.fields else None, refused.message)
                return cleaned

        return RefusedForm

    def changeform_view(self, request: HttpRequest, object_id: str | None = None, form_url: str = "",
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # The service refuses a term in save_model, after the form validated and too late for admin to show the
        # form again. Its transaction rolled back; the second pass builds the form with the error at its field.
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except GlossaryError as exc:
            request.glossary_refused = exc
            return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request: HttpRequest, obj: Term, form: ModelForm, change: bool) -> None:
        word, law_words = form.cleaned_data["word"], form.cleaned_data["law_words"]
        if change:
            # The stored term, not `obj`: the form has already set the new words on it, so nothing would differ.
            stored = selectors.term_get(obj.workspace, obj.pk)
            services.term_update(term=stored, user=request.user, word=word, law_words=law_words)
        else:
            obj.pk = services.term_create(workspace=obj.workspace, user=request.user, word=word,
                                          law_words=law_words).pk
        obj.refresh_from_db()  # as stored (the service tidies the words): admin's message and log name that

    def delete_model(self, request: HttpRequest, obj: Term) -> None:
        services.term_delete(term=obj, user=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Term]) -> None:
        for term in queryset:
            services.term_delete(term=term, user=request.user)
