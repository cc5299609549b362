"""Forms of the register's pages. They shape and validate the input (Swedish errors at the field);
register.services decide and write. Every choice list is the workspace's own: members, groups, files."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.db.models import QuerySet

from compliance.forms import LegalDocumentChoiceField, MemberChoiceField
from compliance.models import LegalDocument, UserFile, Workspace
from compliance.selectors import assessment_list, legal_document_list, workspace_members

from ..models import (
    TEXT_MAX_LENGTH,
    Action,
    ComplianceStatus,
    Evidence,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
)
from ..selectors import evidence_file_choices, register_group_list

DATE_WIDGET = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
YES = [("", "– alla –"), ("ja", "ja")]
# The longest search the document picker and the item filter accept (a pasted page gets a clear error).
SEARCH_MAX_LENGTH = 200


def _blank(label: str, choices: Iterable[tuple[object, object]]) -> list[tuple[str, str]]:
    return [("", label), *[(str(k), str(v)) for k, v in choices]]


def _member_label(user: User) -> str:
    return user.get_full_name() or user.get_username()


class ItemFilterForm(forms.Form):
    """The overview's query string: every value is checked against the workspace's own choices, so a bad or
    foreign value is a clear message instead of a silently ignored filter."""

    grupp = forms.TypedChoiceField(label="Grupp", required=False, coerce=int, empty_value=None)
    status = forms.ChoiceField(label="Status", required=False, choices=_blank("– alla –", ComplianceStatus.choices))
    ansvarig = forms.TypedChoiceField(label="Ansvarig", required=False, coerce=int, empty_value=None)
    typ = forms.ChoiceField(label="Typ", required=False,
                            choices=_blank("– alla –", LegalDocument.ContentType.choices))
    andrad = forms.ChoiceField(label="Ändrade – behöver bedömas", required=False, choices=YES)
    forsenad = forms.ChoiceField(label="Försenad bedömning", required=False, choices=YES)
    q = forms.CharField(label="Sök", required=False, max_length=SEARCH_MAX_LENGTH)

    def __init__(self, *args: Any, groups: Iterable[RegisterGroup], members: Iterable[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["grupp"].choices = _blank("– alla –", [(g.pk, g.name) for g in groups])
        self.fields["ansvarig"].choices = _blank("– alla –", [(u.pk, _member_label(u)) for u in members])

    def selector_filters(self) -> dict:
        """The cleaned values in register.selectors.RegisterItemFilter's terms."""
        data = self.cleaned_data
        filters = {"group": data.get("grupp"), "status": data.get("status"), "responsible": data.get("ansvarig"),
                   "kind": data.get("typ"), "q": (data.get("q") or "").strip()}
        if data.get("andrad"):
            filters["needs_reassessment"] = True
        if data.get("forsenad"):
            filters["overdue"] = True
        return {k: v for k, v in filters.items() if v not in (None, "")}

    def error_text(self) -> str:
        parts = []
        for name, errors in self.errors.items():
            label = self.fields[name].label if name in self.fields else ""
            parts.append(f"{label}: {' '.join(errors)}" if label else " ".join(errors))
        return "Filtret kunde inte användas – " + "; ".join(parts)


class DocumentSearchForm(forms.Form):
    q = forms.CharField(label="Sök författning", required=False, max_length=SEARCH_MAX_LENGTH,
                        widget=forms.TextInput(attrs={"placeholder": "t.ex. 1977:1160, arbetsmiljölag eller AFS"}))
    typ = forms.ChoiceField(label="Typ", required=False, choices=_blank("– alla –", LegalDocument.ContentType.choices))


class ItemAddForm(forms.Form):
    legal_document = LegalDocumentChoiceField(queryset=LegalDocument.objects.none(), required=False,
                                              label="Författning", empty_label="– välj –")
    title = forms.CharField(label="Egen rubrik", required=False, max_length=300,
                            help_text="Bara för egna krav som inte vilar på en författning i Lagrum.")
    group = forms.ModelChoiceField(queryset=RegisterGroup.objects.none(), required=False, label="Grupp",
                                   empty_label="– ingen grupp –")
    new_group = forms.CharField(label="Eller ny grupp", required=False, max_length=120,
                                widget=forms.TextInput(attrs={"placeholder": "t.ex. Arbetsmiljö"}))
    reason = forms.CharField(label="Varför den gäller oss", required=False, max_length=TEXT_MAX_LENGTH,
                             widget=forms.Textarea(attrs={"rows": 3}))
    responsible = MemberChoiceField(queryset=None, required=False, label="Ansvarig", empty_label="– ingen –")

    def __init__(self, *args: Any, workspace: Workspace, register: LegalRegister | None,
                 documents: QuerySet[LegalDocument] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The choices shown are the search's hits; any document may be posted (validated against all of them).
        self.fields["legal_document"].queryset = (documents if documents is not None and not self.is_bound
                                                  else legal_document_list()).only("id", "sfs_number", "title")
        self.fields["group"].queryset = (register_group_list(register) if register is not None
                                         else RegisterGroup.objects.none())
        self.fields["responsible"].queryset = workspace_members(workspace)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors and not data.get("legal_document") and not (data.get("title") or "").strip():
            self.add_error("legal_document", "Välj en författning eller ange en egen rubrik.")
        return data


class ItemEditForm(forms.Form):
    group = forms.ModelChoiceField(queryset=RegisterGroup.objects.none(), required=False, label="Grupp",
                                   empty_label="– ingen grupp –")
    responsible = MemberChoiceField(queryset=None, required=False, label="Ansvarig", empty_label="– ingen –")
    status = forms.ChoiceField(label="Status", choices=ComplianceStatus.choices)
    reason = forms.CharField(label="Varför den gäller oss", required=False, max_length=TEXT_MAX_LENGTH,
                             widget=forms.Textarea(attrs={"rows": 3}))
    how_we_comply = forms.CharField(label="Hur vi uppfyller kraven", required=False, max_length=TEXT_MAX_LENGTH,
                                    widget=forms.Textarea(attrs={"rows": 5}))
    next_review_date = forms.DateField(label="Nästa bedömning", required=False, widget=DATE_WIDGET)

    def __init__(self, *args: Any, item: RegisterItem, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["group"].queryset = register_group_list(item.register)
        self.fields["responsible"].queryset = workspace_members(item.workspace)

    @staticmethod
    def initial_for(item: RegisterItem) -> dict:
        return {"group": item.group_id, "responsible": item.responsible_id, "status": item.status,
                "reason": item.reason, "how_we_comply": item.how_we_comply,
                "next_review_date": item.next_review_date}


class RequirementForm(forms.Form):
    title = forms.CharField(label="Krav", max_length=300)
    section_ref = forms.CharField(label="Paragraf eller artikel", required=False, max_length=80,
                                  widget=forms.TextInput(attrs={"placeholder": "t.ex. 3 kap. 2 a §"}))
    description = forms.CharField(label="Beskrivning", required=False, max_length=TEXT_MAX_LENGTH,
                                  widget=forms.Textarea(attrs={"rows": 3}))
    status = forms.ChoiceField(label="Status", choices=ComplianceStatus.choices, initial=ComplianceStatus.NOT_ASSESSED)
    owner = MemberChoiceField(queryset=None, required=False, label="Ansvarig", empty_label="– ingen –")
    needs_evidence = forms.BooleanField(label="Kräver bevis", required=False)
    due_date = forms.DateField(label="Klart senast", required=False, widget=DATE_WIDGET)

    def __init__(self, *args: Any, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["owner"].queryset = workspace_members(workspace)

    @staticmethod
    def initial_for(requirement: Requirement) -> dict:
        return {"title": requirement.title, "section_ref": requirement.section_ref,
                "description": requirement.description, "status": requirement.status,
                "owner": requirement.owner_id, "needs_evidence": requirement.needs_evidence,
                "due_date": requirement.due_date}


class FileChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: UserFile) -> str:
        return f"{obj} (privat)" if obj.is_private else str(obj)


class EvidenceForm(forms.Form):
    kind = forms.ChoiceField(label="Typ av bevis", choices=Evidence.Kind.choices, initial=Evidence.Kind.FILE,
                             widget=forms.RadioSelect)
    user_file = FileChoiceField(queryset=UserFile.objects.none(), required=False, label="Fil i kunskapsbasen",
                                empty_label="– välj fil –")
    assessment = forms.ModelChoiceField(queryset=None, required=False, label="Bedömning",
                                        empty_label="– välj bedömning –")
    reference = forms.CharField(label="Extern referens", required=False, max_length=500,
                                widget=forms.TextInput(attrs={"placeholder": "Dokumentnamn, diarienummer eller länk"}))
    note = forms.CharField(label="Kommentar", required=False, max_length=TEXT_MAX_LENGTH,
                           widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args: Any, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["user_file"].queryset = evidence_file_choices(workspace)
        self.fields["assessment"].queryset = assessment_list(workspace)


class ReviewStartForm(forms.Form):
    title = forms.CharField(label="Rubrik", max_length=200)
    register = forms.ModelChoiceField(queryset=LegalRegister.objects.none(), label="Laglista", empty_label=None)
    groups = forms.ModelMultipleChoiceField(queryset=RegisterGroup.objects.none(), required=False,
                                            label="Grupper (inga valda = hela listan)",
                                            widget=forms.CheckboxSelectMultiple)
    lead = MemberChoiceField(queryset=None, required=False, label="Ansvarig granskare", empty_label="– ingen –")
    due_date = forms.DateField(label="Klar senast", required=False, widget=DATE_WIDGET)

    def __init__(self, *args: Any, workspace: Workspace, registers: QuerySet[LegalRegister], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["register"].queryset = registers
        self.fields["groups"].queryset = RegisterGroup.objects.filter(register__in=registers).select_related("register")
        self.fields["lead"].queryset = workspace_members(workspace)


class EvidenceChoiceField(forms.ModelMultipleChoiceField):
    """Shown only to editors, who may see private files: the kravpunkt it proves, then the evidence."""

    def label_from_instance(self, obj: Evidence) -> str:
        requirement = obj.requirement
        return f"{requirement.section_ref or requirement.title}: {obj}"


class RatingForm(forms.Form):
    rating = forms.ChoiceField(label="Bedömning", choices=_blank("– välj –", [
        c for c in ComplianceStatus.choices if c[0] != ComplianceStatus.NOT_ASSESSED]))
    justification = forms.CharField(label="Motivering", required=False, max_length=TEXT_MAX_LENGTH,
                                    widget=forms.Textarea(attrs={"rows": 2}))
    evidence = EvidenceChoiceField(queryset=Evidence.objects.none(), required=False, label="Bevis",
                                   widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args: Any, evidence: QuerySet[Evidence], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["evidence"].queryset = evidence


class ActionFilterForm(forms.Form):
    lage = forms.ChoiceField(label="Läge", required=False,
                             choices=[("oppna", "Öppna"), ("klara", "Åtgärdade"), ("alla", "Alla")])
    ansvarig = forms.TypedChoiceField(label="Ansvarig", required=False, coerce=int, empty_value=None)

    def __init__(self, *args: Any, members: Iterable[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ansvarig"].choices = _blank("– alla –", [(u.pk, _member_label(u)) for u in members])


class ActionForm(forms.Form):
    title = forms.CharField(label="Åtgärd", max_length=300)
    description = forms.CharField(label="Beskrivning", required=False, max_length=TEXT_MAX_LENGTH,
                                  widget=forms.Textarea(attrs={"rows": 2}))
    owner = MemberChoiceField(queryset=None, required=False, label="Ansvarig", empty_label="– ingen –")
    due_date = forms.DateField(label="Klar senast", required=False, widget=DATE_WIDGET)

    def __init__(self, *args: Any, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["owner"].queryset = workspace_members(workspace)


class ActionUpdateForm(forms.Form):
    owner = MemberChoiceField(queryset=None, required=False, label="Ansvarig", empty_label="– ingen –")
    due_date = forms.DateField(label="Klar senast", required=False, widget=DATE_WIDGET)
    state = forms.ChoiceField(label="Läge", choices=Action.State.choices)

    def __init__(self, *args: Any, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["owner"].queryset = workspace_members(workspace)
