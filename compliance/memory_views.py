"""The settings page: the workspace profile (owners and editors edit, readers see it) and the
user's own preferences, each fact with its origin; delete one fact, or clear everything of a kind
after a confirmation page naming what goes.

Another workspace is a 404 (membership_get_by_slug); preferences are only ever the caller's own.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import selectors, services
from .forms import PreferenceForm, ProfileForm
from .models import PREFERENCE_FIELDS, PROFILE_FIELDS, Membership, PersonalPreference, Workspace, WorkspaceProfile
from .services import ProfileInputError
from .views import _require_edit, membership_for_page


def _origin_rows(instance: WorkspaceProfile | PersonalPreference, names: tuple[str, ...]) -> list[dict]:
    rows = []
    for name in names:
        value = getattr(instance, name)
        if value is None or value == "":
            continue
        field = instance._meta.get_field(name)
        shown = ("ja" if value else "nej") if isinstance(value, bool) else (
            dict(field.flatchoices).get(value, value) if field.choices else value)
        origin = instance.origins.get(name) or {}
        rows.append({"field": name, "label": str(field.verbose_name).capitalize(), "value": shown,
                     "origin": origin.get("origin", ""), "conversation_id": origin.get("conversation_id"),
                     "at": parse_datetime(origin["at"]) if origin.get("at") else None})
    return rows


def _page(request: HttpRequest, ws: Workspace, membership: Membership, *, profile_form: ProfileForm | None = None,
          preference_form: PreferenceForm | None = None, status: int = 200) -> HttpResponse:
    profile = selectors.workspace_profile_get(ws)
    preference = selectors.preference_get(ws, request.user)
    facts = list(selectors.profile_fact_list(ws).select_related("created_by")) if profile.pk else []
    return render(request, "compliance/settings.html", {
        "workspace": ws,
        "membership": membership,
        "can_edit": membership.can_edit,
        "nav": "settings",
        "profile_form": profile_form or ProfileForm(initial=ProfileForm.initial_from(profile)),
        "preference_form": preference_form or PreferenceForm(initial=PreferenceForm.initial_from(preference)),
        "profile_rows": _origin_rows(profile, PROFILE_FIELDS),
        "preference_rows": _origin_rows(preference, PREFERENCE_FIELDS),
        "facts": facts,
    }, status=status)


@login_required
@require_GET
def workspace_settings(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return _page(request, ws, membership)


def _values(post: QueryDict, form_class: type[forms.Form]) -> dict:
    return {name: post.get(name, "") for name in form_class.base_fields}


def _save_form(request: HttpRequest, ws: Workspace, membership: Membership, *, save: Callable[[dict], object],
               form_class: type[forms.Form], form_arg: str, done: str) -> HttpResponse:
    """Store the posted form through `save(values)`; on bad input the page again, with the Swedish error at its field."""
    try:
        save(_values(request.POST, form_class))
    except ProfileInputError as exc:
        form = form_class(data=request.POST)
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return _page(request, ws, membership, **{form_arg: form}, status=400)
    messages.success(request, done)
    return redirect("workspace_settings", slug=ws.slug)


@login_required
@require_POST
def profile_save(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    return _save_form(request, ws, membership, form_class=ProfileForm, form_arg="profile_form",
                      save=lambda values: services.profile_update(workspace=ws, user=request.user, values=values),
                      done="Företagsprofilen har sparats.")


@login_required
@require_POST
def preferences_save(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return _save_form(request, ws, membership, form_class=PreferenceForm, form_arg="preference_form",
                      save=lambda values: services.preference_update(workspace=ws, user=request.user, values=values),
                      done="Dina inställningar har sparats.")


@login_required
@require_POST
def fact_add(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    try:
        services.profile_fact_add(workspace=ws, user=request.user, text=request.POST.get("text", ""))
    except ProfileInputError as exc:
        messages.error(request, exc.message)
        return _page(request, ws, membership, status=400)
    messages.success(request, "Uppgiften har sparats.")
    return redirect("workspace_settings", slug=ws.slug)


@login_required
@require_POST
def fact_delete(request: HttpRequest, slug: str, fact_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    fact = selectors.profile_fact_get(ws, fact_id)
    _require_edit(membership)
    services.profile_fact_delete(fact)
    messages.success(request, f"Uppgiften ”{fact.text}” har tagits bort.")
    return redirect("workspace_settings", slug=ws.slug)


@login_required
@require_POST
def profile_field_clear(request: HttpRequest, slug: str, field: str) -> HttpResponse:
    """Delete one structured fact (e.g. the employee count) from the profile or from the user's preferences."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    if field in PROFILE_FIELDS:
        _require_edit(membership)
        services.profile_update(workspace=ws, user=request.user, values={field: None})
    elif field in PREFERENCE_FIELDS:
        services.preference_update(workspace=ws, user=request.user, values={field: ""})
    else:
        raise ProfileInputError("unknown_field", "Okänt fält.")
    messages.success(request, "Uppgiften har tagits bort.")
    return redirect("workspace_settings", slug=ws.slug)


@login_required
@require_http_methods(["GET", "POST"])
def profile_clear(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """"Rensa allt": GET asks (naming how much goes), POST clears."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    if kind == "profil":
        _require_edit(membership)
        profile = selectors.workspace_profile_get(ws)
        count = len(_origin_rows(profile, PROFILE_FIELDS)) + (selectors.profile_fact_list(ws).count()
                                                              if profile.pk else 0)
        what = "arbetsytans företagsprofil"
        note = "Uppgifterna gäller alla medlemmar i arbetsytan och används inte längre i svaren."
    elif kind == "installningar":
        count = len(_origin_rows(selectors.preference_get(ws, request.user), PREFERENCE_FIELDS))
        what = "dina personliga inställningar"
        note = "Bara dina egna inställningar i den här arbetsytan påverkas."
    else:
        raise ProfileInputError("not_found", "Sidan finns inte.", status=404)
    if request.method == "POST":
        if kind == "profil":
            services.profile_clear(workspace=ws)
        else:
            services.preference_clear(workspace=ws, user=request.user)
        messages.success(request, f"Allt i {what} har rensats ({count} uppgift{'er' if count != 1 else ''}).")
        return redirect("workspace_settings", slug=ws.slug)
    return render(request, "compliance/settings_clear.html", {
        "workspace": ws, "membership": membership, "nav": "settings", "what": what, "count": count, "note": note,
    })
