"""Forms of the Lagändringar pages and the e-mail setting. Validation only: the services write."""

from __future__ import annotations

from typing import Any

from django import forms

from compliance.forms import MemberChoiceField
from compliance.models import Workspace
from compliance.selectors import workspace_members

from ..models import ImpactAssessment, NoticeSubscription


class ImpactForm(forms.Form):
    affects_us = forms.ChoiceField(label="Påverkar ändringen oss?", choices=ImpactAssessment.Affects.choices,
                                   widget=forms.RadioSelect,
                                   error_messages={"required": "Ange om ändringen påverkar er."})
    what_to_do = forms.CharField(label="Vad behöver göras?", required=False, max_length=20_000,
                                 widget=forms.Textarea(attrs={"rows": 3}))
    action_title = forms.CharField(label="Åtgärd", required=False, max_length=300,
                                   help_text="Fyll i om något behöver göras: en åtgärd med ansvarig och datum skapas.")
    action_owner = MemberChoiceField(label="Ansvarig för åtgärden", queryset=None, required=False)
    action_due_date = forms.DateField(label="Klar senast", required=False,
                                      widget=forms.DateInput(attrs={"type": "date"}),
                                      error_messages={"invalid": "Ange datumet som ÅÅÅÅ-MM-DD."})
    comment = forms.CharField(label="Kommentar", required=False, max_length=20_000,
                              widget=forms.Textarea(attrs={"rows": 2}))
    add_to_register = forms.BooleanField(label="Lägg till i laglistan", required=False)

    def __init__(self, *args: Any, workspace: Workspace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["action_owner"].queryset = workspace_members(workspace)


class SubscriptionForm(forms.Form):
    frequency = forms.ChoiceField(label="Sammanställning per e-post", choices=NoticeSubscription.Frequency.choices,
                                  error_messages={"invalid_choice": "Välj av, dagligen eller veckovis."})
    changes = forms.BooleanField(label="Ändrade och upphävda författningar i laglistan", required=False)
    new_statutes = forms.BooleanField(label="Nya författningar som kan gälla oss", required=False)

    @classmethod
    def initial_from(cls, subscription: NoticeSubscription) -> dict:
        return {"frequency": subscription.frequency, "changes": subscription.changes,
                "new_statutes": subscription.new_statutes}


class NoticeReportForm(forms.Form):
    """The report's period, both ends optional (Stockholm days); the selector checks their order."""

    fran = forms.DateField(label="Från", required=False, widget=forms.DateInput(attrs={"type": "date"}),
                           error_messages={"invalid": "Ange startdatumet som ÅÅÅÅ-MM-DD."})
    till = forms.DateField(label="Till och med", required=False, widget=forms.DateInput(attrs={"type": "date"}),
                           error_messages={"invalid": "Ange slutdatumet som ÅÅÅÅ-MM-DD."})
