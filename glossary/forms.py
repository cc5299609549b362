"""The glossary page's form: rendering and the field an error belongs to. The service validates (glossary.services),
so the fields check nothing themselves: an error shows once, in the service's words."""

from __future__ import annotations

from django import forms

from .models import LAW_WORDS_MAX_LENGTH, WORD_MAX_LENGTH, Term


class TermForm(forms.Form):
    word = forms.CharField(label="Ert ord", required=False, help_text=Term._meta.get_field("word").help_text,
                           widget=forms.TextInput(attrs={"maxlength": WORD_MAX_LENGTH, "autocomplete": "off"}))
    law_words = forms.CharField(label="Lagens ord", required=False,
                                help_text=Term._meta.get_field("law_words").help_text,
                                widget=forms.TextInput(attrs={"maxlength": LAW_WORDS_MAX_LENGTH,
                                                              "autocomplete": "off"}))
