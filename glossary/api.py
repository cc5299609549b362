"""The glossary's REST API under /api/v1/workspaces/<slug>/glossary/ (routes in glossary/api_urls.py): list,
add, read, change and remove a workspace's terms; export them as Excel or CSV and import a file of them.

Thin: glossary.selectors read from the workspace the membership resolved (another workspace, or its term, is a
404), glossary.services write. The serializers check types only; what a term may be (lengths, stop words,
duplicates) is the service's, so the page, the API and admin store the same things, and a GlossaryError comes
out in the one error shape with its status (400, or 409 for a word the glossary has). Owners and editors write;
a reader or revisor gets a 403. Authentication, throttling and pagination are compliance.api's.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from agent.retrieval.glossary_checks import LawWordsCheck, law_words_checks
from compliance.api.serializers import StrictCharField
from compliance.api.views import ApiMixin, BaseApi, WorkspaceMixin, validated
from compliance.clock import swedish_today
from compliance.models import Workspace
from compliance.selectors import access_scope_for

from . import selectors, services, transfer
from .models import LAW_WORDS_MAX_LENGTH, WORD_MAX_LENGTH, Term

TAGS = ["glossary"]
INPUT_ERRORS = ("Fel i indata ger 400 med fältet i `details`; ett ord som redan finns i ordlistan (oavsett "
                "versaler) ger 409 `duplicate`.")


class ProvisionSerializer(serializers.Serializer):
    written = serializers.CharField(help_text="Hänvisningen som lagens ord skriver den, t.ex. ”11 kap. 11 § "
                                              "inkomstskattelagen”.")
    document_number = serializers.CharField(source="number", help_text="Författningens nummer; tomt när "
                                                                       "hänvisningen inte anger vilken.")
    citation = serializers.CharField(help_text="Paragrafen, artikeln eller kapitlet; tomt för en hel författning.")
    held = serializers.BooleanField(help_text="Kunskapsbasen har den (av ett intervall minst en paragraf), så en "
                                              "fråga med ordet får den som källa.")
    missing = serializers.ListField(child=serializers.CharField(),
                                    help_text="De paragrafer i ett intervall eller en uppräkning som kunskapsbasen "
                                              "saknar.")


class TermSerializer(serializers.ModelSerializer):
    """A term, and what its law words would find (the Ordlista page shows the same): the serializer's context holds
    `checks`, glossary_checks' result for the terms serialized (`serialized_terms`)."""

    created_by = serializers.CharField(source="created_by.get_username", default=None, read_only=True,
                                       allow_null=True)
    provisions = serializers.SerializerMethodField(help_text="Lagrum som lagens ord hänvisar till.")
    unused_law_words = serializers.SerializerMethodField(help_text="Lagens ord som ingen källa använder: de hittar "
                                                                   "inget.")

    class Meta:
        model = Term
        fields = ["id", "word", "law_words", "provisions", "unused_law_words", "created_by", "created_at",
                  "updated_at"]

    def _check(self, term: Term) -> LawWordsCheck:
        return self.context["checks"][term.law_words]

    @extend_schema_field(ProvisionSerializer(many=True))
    def get_provisions(self, term: Term) -> list[dict]:
        return ProvisionSerializer(self._check(term).provisions, many=True).data

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_unused_law_words(self, term: Term) -> list[str]:
        return self._check(term).unused_words


def serialized_terms(request: Request, workspace: Workspace, terms: list[Term]) -> list[dict]:
    """The terms as the API returns them, their law words checked in the asker's access scope (one look-up)."""
    checks = law_words_checks([term.law_words for term in terms], access_scope_for(request.user, workspace))
    return TermSerializer(terms, many=True, context={"checks": checks}).data


class TermInputSerializer(serializers.Serializer):
    # Blank is allowed here so an empty word gets the service's message on its field, like the page's form.
    word = StrictCharField(allow_blank=True, help_text=f"Ordet som ni använder, t.ex. ”visselblåsare” "
                                                       f"(högst {WORD_MAX_LENGTH} tecken).")
    law_words = StrictCharField(allow_blank=True, help_text=f"Vad lagen kallar samma sak, t.ex. ”rapporterande "
                                                            f"person”, gärna med lagrummet: ”personalvårdsförmån (11 "
                                                            f"kap. 11 § inkomstskattelagen)” ger en fråga med ordet "
                                                            f"den paragrafen som första källa (högst "
                                                            f"{LAW_WORDS_MAX_LENGTH} tecken).")


class TermFilterSerializer(serializers.Serializer):
    q = StrictCharField(required=False, allow_blank=True, max_length=100,
                        help_text="En del av ert ord eller av lagens ord, oavsett versaler.")


class TermListApi(WorkspaceMixin, ApiMixin, generics.ListAPIView):
    serializer_class = TermSerializer
    parser_classes = [JSONParser]

    def get_queryset(self) -> QuerySet[Term]:
        if self.fake_view():
            return Term.objects.none()
        return selectors.term_list(self.workspace, filters=validated(TermFilterSerializer, self.request.query_params))

    @extend_schema(tags=TAGS, summary="Arbetsytans ordlista", parameters=[TermFilterSerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(serialized_terms(request, self.workspace, list(page)))

    @extend_schema(tags=TAGS, summary="Lägg till ett begrepp (ägare, redaktör)", request=TermInputSerializer,
                   responses={201: TermSerializer}, description=INPUT_ERRORS)
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(TermInputSerializer, request.data)
        term = services.term_create(workspace=self.workspace, user=request.user, **data)
        return Response(serialized_terms(request, self.workspace, [term])[0], status=status.HTTP_201_CREATED)


class TermDetailApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=TAGS, summary="Ett begrepp", responses=TermSerializer)
    def get(self, request: Request, slug: str, term_id: int) -> Response:
        return Response(serialized_terms(request, self.workspace, [selectors.term_get(self.workspace, term_id)])[0])

    def _save(self, request: Request, term_id: int, *, partial: bool) -> Response:
        # The term first, the role second: another workspace's id is a 404 for everyone, never a 403.
        term = selectors.term_get(self.workspace, term_id)
        self.require_edit()
        serializer = TermInputSerializer(data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        # PATCH leaves out what does not change; the service validates the pair as a whole.
        data = {"word": term.word, "law_words": term.law_words, **serializer.validated_data}
        term = services.term_update(term=term, user=request.user, **data)
        return Response(serialized_terms(request, self.workspace, [term])[0])

    @extend_schema(tags=TAGS, summary="Ersätt ett begrepp (ägare, redaktör)", request=TermInputSerializer,
                   responses=TermSerializer, description=INPUT_ERRORS)
    def put(self, request: Request, slug: str, term_id: int) -> Response:
        return self._save(request, term_id, partial=False)

    @extend_schema(tags=TAGS, summary="Ändra ett begrepp (ägare, redaktör)",
                   request=TermInputSerializer(partial=True), responses=TermSerializer, description=INPUT_ERRORS)
    def patch(self, request: Request, slug: str, term_id: int) -> Response:
        return self._save(request, term_id, partial=True)

    @extend_schema(tags=TAGS, summary="Ta bort ett begrepp (ägare, redaktör)", responses={204: None})
    def delete(self, request: Request, slug: str, term_id: int) -> Response:
        term = selectors.term_get(self.workspace, term_id)
        self.require_edit()
        services.term_delete(term=term, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TermImportUploadSerializer(serializers.Serializer):
    # Size, emptiness and kind are the import's call (its own codes and Swedish messages).
    file = serializers.FileField(allow_empty_file=True, max_length=500,
                                 help_text="Excel (.xlsx) eller CSV (; , eller tab; UTF-8 eller Windows-1252) med "
                                           "kolumnerna ”Ord” och ”Lagens ord”.")


class TermImportResultSerializer(serializers.Serializer):
    added = serializers.IntegerField(help_text="Nya begrepp.")
    changed = serializers.IntegerField(help_text="Begrepp som fanns och fick filens lagens ord.")
    unchanged = serializers.IntegerField(help_text="Begrepp som fanns med samma lagens ord.")


class TermExportApi(WorkspaceMixin, BaseApi):
    # The format is a path segment, as the register's exports: DRF reads `?format=` as the renderer to answer with.
    @extend_schema(tags=TAGS, summary="Exportera ordlistan (xlsx eller csv)",
                   responses={(200, transfer.CONTENT_TYPES[fmt].split(";")[0]): OpenApiResponse(OpenApiTypes.BINARY)
                              for fmt in transfer.FORMATS},
                   parameters=[OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(transfer.FORMATS))],
                   description="Kolumnerna ”Ord” och ”Lagens ord”, som importen läser. CSV: UTF-8 med BOM, "
                               "semikolonseparerad.")
    def get(self, request: Request, slug: str, fmt: str) -> HttpResponse:
        if fmt not in transfer.FORMATS:
            raise Http404("Okänt format.")
        export = transfer.glossary_file(list(selectors.term_list(self.workspace)), fmt,
                                        workspace_slug=self.workspace.slug, day=swedish_today())
        return export.as_download()


class TermImportApi(WorkspaceMixin, BaseApi):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(tags=TAGS, summary="Importera begrepp från en fil (ägare, redaktör)",
                   request=TermImportUploadSerializer, responses=TermImportResultSerializer,
                   description="Nya ord läggs till; ett ord som finns (oavsett versaler) får filens lagens ord; inget "
                               "tas bort, så samma fil två gånger ändrar inget andra gången. Allt eller inget: "
                               "ogiltiga rader, ett ord två gånger med olika lagens ord ger 400 `broken_rows` med "
                               "raderna i `details.rows`; fler begrepp än ordlistan rymmer ger 400 `too_many`; en "
                               "fil som inte kan läsas ger 400 med sin kod (t.ex. `not_a_list`, `no_header`); en samtidig "
                               "ändring av samma ord ger 409 `conflict`.")
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(TermImportUploadSerializer, request.data)
        result = services.term_import(workspace=self.workspace, user=request.user,
                                      rows=transfer.read_upload(data["file"]))
        return Response(TermImportResultSerializer(result).data)
