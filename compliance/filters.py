"""List filters, applied inside the selectors so the web pages and the API filter alike.

Callers validate the raw query string first (the API with its filter
serializers, which also document the parameters in the schema); a FilterSet
here only turns already-clean values into queryset conditions.
"""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet

from .models import Assessment, LegalDocument, ProcessingStatus, UserFile


class LegalDocumentFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q")
    sfs = django_filters.CharFilter(method="filter_sfs")
    content_type = django_filters.ChoiceFilter(choices=LegalDocument.ContentType.choices)
    agency = django_filters.CharFilter(method="filter_agency")

    class Meta:
        model = LegalDocument
        fields = ["content_type"]

    def filter_q(self, queryset: QuerySet[LegalDocument], name: str, value: str) -> QuerySet[LegalDocument]:
        """An SFS number or its start, a word of the title, a short name or an abbreviation."""
        q = value.strip()
        if not q:
            return queryset
        return queryset.filter(
            Q(sfs_number__startswith=q) | Q(title__icontains=q)
            | Q(abbreviations__contains=[q]) | Q(abbreviations__contains=[q.upper()])
            | Q(short_names__icontains=q)
        )

    def filter_agency(self, queryset: QuerySet[LegalDocument], name: str, value: str) -> QuerySet[LegalDocument]:
        """The issuing agency by name (Arbetsmiljöverket) or by its series (AFS)."""
        value = value.strip()
        return queryset.filter(Q(agency__iexact=value) | Q(series__iexact=value)) if value else queryset

    def filter_sfs(self, queryset: QuerySet[LegalDocument], name: str, value: str) -> QuerySet[LegalDocument]:
        """An exact SFS number (1977:1160) or a year (1977)."""
        if ":" in value:
            return queryset.filter(sfs_number=value)
        return queryset.filter(sfs_number__startswith=f"{value}:")


class UserFileFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q")
    status = django_filters.ChoiceFilter(choices=ProcessingStatus.choices)
    is_private = django_filters.BooleanFilter()

    class Meta:
        model = UserFile
        fields = ["status", "is_private"]

    def filter_q(self, queryset: QuerySet[UserFile], name: str, value: str) -> QuerySet[UserFile]:
        q = value.strip()
        return queryset.filter(Q(title__icontains=q) | Q(original_name__icontains=q)) if q else queryset


class AssessmentFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q")
    compliance_status = django_filters.ChoiceFilter(choices=Assessment.Status.choices)
    sfs = django_filters.CharFilter(field_name="legal_document__sfs_number")
    owner = django_filters.CharFilter(field_name="owner__username")

    class Meta:
        model = Assessment
        fields = ["compliance_status"]

    def filter_q(self, queryset: QuerySet[Assessment], name: str, value: str) -> QuerySet[Assessment]:
        q = value.strip()
        return queryset.filter(Q(title__icontains=q) | Q(notes__icontains=q)) if q else queryset


def apply(filterset_class: type[django_filters.FilterSet], filters: dict | None, queryset: QuerySet) -> QuerySet:
    """`queryset` narrowed by `filters`; None values mean "not given" (the API passes them)."""
    data = {k: v for k, v in (filters or {}).items() if v is not None and v != ""}
    if not data:
        return queryset
    return filterset_class(data, queryset=queryset).qs
