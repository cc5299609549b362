"""Forms of the workspace pages. Validation only: services do the writing."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.db.models import Model

from .models import Assessment, LegalDocument, PersonalPreference, Workspace, WorkspaceProfile
from .selectors import legal_document_list, workspace_members


class UploadForm(forms.Form):
    """The options of an upload. The files themselves are read from request.FILES.getlist("files"):
    each is judged on its own by `services.user_file_upload`, so one bad file never blocks the others."""

    is_private = forms.BooleanField(
        label="Privat", required=False,
        help_text="Används aldrig som underlag för AI-svar.",
    )


class LegalDocumentChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: LegalDocument) -> str:
        title = obj.title if obj.sfs_number in obj.title else f"{obj.title} ({obj.sfs_number})"
        return f"{obj.sfs_number} – {title}"


class MemberChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: User) -> str:
        full = obj.get_full_name()
        return f"{full} ({obj.get_username()})" if full else obj.get_username()


class SharingForm(forms.Form):
    allow_cross_workspace = forms.BooleanField(
        label="Får användas i andra arbetsytors svar", required=False,
        help_text="När en medlem nämner arbetsytan i en annan arbetsytas chatt får svaret även använda "
                  "dess filer och bedömningar (aldrig privata filer).",
    )


class AssessmentForm(forms.ModelForm):
    """Create or edit an assessment. `owner` is limited to the workspace's members."""

    legal_document = LegalDocumentChoiceField(
        queryset=LegalDocument.objects.none(), required=False, label="Författning",
        empty_label="– ingen vald –",
    )
    owner = MemberChoiceField(queryset=None, required=False, label="Ansvarig", empty_label="– ingen –")

    class Meta:
        model = Assessment
        fields = ["title", "legal_document", "section_ref", "compliance_status", "notes", "owner", "due_date"]
        labels = {
            "title": "Krav",
            "section_ref": "Paragraf",
            "compliance_status": "Bedömning",
            "notes": "Anteckningar",
            "due_date": "Förfallodatum",
        }
        widgets = {
            "section_ref": forms.TextInput(attrs={"placeholder": "t.ex. 3 kap. 2 a §"}),
            "notes": forms.Textarea(attrs={"rows": 5}),
            "due_date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        }

    def __init__(self, *args: Any, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["legal_document"].queryset = legal_document_list().only("id", "sfs_number", "title")
        self.fields["owner"].queryset = workspace_members(workspace)
        self.fields["title"].widget.attrs.setdefault("autofocus", True)
        self.fields["section_ref"].help_text = ""  # the placeholder shows the example


YES_NO = [("", "– ej angivet –"), ("ja", "Ja"), ("nej", "Nej")]


def _yes_no(value: bool | None) -> str:
    return "" if value is None else ("ja" if value else "nej")


def _choices(model: type[Model], field: str) -> list[tuple[str, str]]:
    return [("", "– ej angivet –"), *[(k, str(v).capitalize()) for k, v in model._meta.get_field(field).choices]]


class ProfileForm(forms.Form):
    """The workspace profile. Only shapes the input: `services.profile_update` validates, with Swedish errors."""

    employee_count = forms.CharField(label="Antal anställda", required=False,
                                     widget=forms.TextInput(attrs={"inputmode": "numeric"}))
    industry = forms.CharField(label="Bransch", required=False)
    sni_code = forms.CharField(label="SNI-kod", required=False,
                               widget=forms.TextInput(attrs={"placeholder": "t.ex. 78.200"}))
    has_collective_agreement = forms.ChoiceField(label="Kollektivavtal", required=False, choices=YES_NO)
    collective_agreement = forms.CharField(label="Vilket kollektivavtal", required=False)
    sector = forms.ChoiceField(label="Sektor", required=False, choices=_choices(WorkspaceProfile, "sector"))
    processes_sensitive_data = forms.ChoiceField(label="Behandlar känsliga personuppgifter", required=False,
                                                 choices=YES_NO)
    location = forms.CharField(label="Verksamhetsort", required=False)

    @classmethod
    def initial_from(cls, profile: WorkspaceProfile) -> dict:
        initial = {name: getattr(profile, name) for name in cls.base_fields}
        initial["employee_count"] = "" if profile.employee_count is None else profile.employee_count
        for name in ("has_collective_agreement", "processes_sensitive_data"):
            initial[name] = _yes_no(getattr(profile, name))
        return initial


class PreferenceForm(forms.Form):
    role = forms.CharField(label="Din roll", required=False,
                           widget=forms.TextInput(attrs={"placeholder": "t.ex. HR-chef"}))
    expertise = forms.ChoiceField(label="Kunskapsnivå", required=False,
                                  choices=_choices(PersonalPreference, "expertise"))
    answer_length = forms.ChoiceField(label="Svarslängd", required=False,
                                      choices=_choices(PersonalPreference, "answer_length"))
    tone = forms.ChoiceField(label="Ton", required=False, choices=_choices(PersonalPreference, "tone"))
    language = forms.ChoiceField(label="Svarsspråk", required=False, choices=_choices(PersonalPreference, "language"))

    @classmethod
    def initial_from(cls, preference: PersonalPreference) -> dict:
        return {name: getattr(preference, name) for name in cls.base_fields}
