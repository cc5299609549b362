"""Forms of the workspace pages. Validation only: services do the writing."""

from __future__ import annotations

from django import forms

from .models import Assessment, LegalDocument
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
    def label_from_instance(self, obj) -> str:
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

    def __init__(self, *args, workspace, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["legal_document"].queryset = legal_document_list().only("id", "sfs_number", "title")
        self.fields["owner"].queryset = workspace_members(workspace)
        self.fields["title"].widget.attrs.setdefault("autofocus", True)
        self.fields["section_ref"].help_text = ""  # the placeholder shows the example
