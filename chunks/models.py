"""ContentChunk: the unit of retrieval.

A chunk belongs to exactly one source (a shared statute, a workspace file or an
assessment). `workspace` is NULL for the shared statutes and the owning
workspace otherwise, so the retrieval scope is one indexed predicate.
The Swedish tsvector is a generated column: keyword search works the moment a
chunk is written, long before its embedding lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from pgvector.django import HnswIndex, VectorField

if TYPE_CHECKING:  # for annotations only: the foreign keys name their models by string
    from compliance.models import Assessment, LegalDocument, UserFile


class SourceType(models.TextChoices):
    LEGAL_DOCUMENT = "LEGAL_DOCUMENT", "författning"
    USER_FILE = "USER_FILE", "fil"
    ASSESSMENT = "ASSESSMENT", "bedömning"


class ContentChunk(models.Model):
    source_type = models.CharField(max_length=20, choices=SourceType.choices, db_index=True)
    legal_document = models.ForeignKey("compliance.LegalDocument", null=True, blank=True,
                                       on_delete=models.CASCADE, related_name="chunks")
    user_file = models.ForeignKey("compliance.UserFile", null=True, blank=True,
                                  on_delete=models.CASCADE, related_name="chunks")
    assessment = models.ForeignKey("compliance.Assessment", null=True, blank=True,
                                   on_delete=models.CASCADE, related_name="chunks")
    workspace = models.ForeignKey("compliance.Workspace", null=True, blank=True,
                                  on_delete=models.CASCADE, related_name="chunks")
    document_number = models.CharField(max_length=40, blank=True, db_index=True)
    document_title = models.CharField(max_length=1000, blank=True)  # as LegalDocument.title
    header = models.CharField(max_length=1000)
    path = models.CharField(max_length=200)
    ordinal = models.PositiveIntegerField()
    citation = models.CharField(max_length=200, blank=True, db_index=True)
    chapter = models.CharField(max_length=20, blank=True)
    section = models.CharField(max_length=20, blank=True)
    page = models.PositiveIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=20, default="section")
    # False for repealed or renumbered stubs and empty headings: shown on the statute page,
    # never retrieved (and never in the keyword postings or statistics).
    retrievable = models.BooleanField(default=True)
    # True for every chunk of a repealed statute: out of ordinary retrieval, still found when a question
    # names the statute (agent.retrieval.hybrid), labelled with its repeal. Apart from `retrievable`, so a
    # named repealed statute's stubs stay out and its sections keep their keyword postings.
    document_repealed = models.BooleanField(default=False, db_default=False)
    text = models.TextField()
    token_count = models.PositiveIntegerField(default=0)
    content_hash = models.CharField(max_length=64, db_index=True)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True, db_index=True)
    search_vector = models.GeneratedField(
        expression=(
            SearchVector("header", weight="A", config="swedish")
            + SearchVector("text", weight="B", config="swedish")
        ),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["path"]
        indexes = [
            # A graph built with a deeper candidate list (256) finds more of the exact nearest neighbours at the
            # same search depth: on the loaded statutes the real questions' recall@20 went from 0.71 to 0.83 at
            # ef_search 100, and at 1M chunks from 0.61 to 0.91. Inserting into it costs more, so the bulk loaders
            # build it once at the end of a load (chunks/vector_index.py).
            HnswIndex(name="chunk_embedding_hnsw", fields=["embedding"], m=16, ef_construction=256,
                      opclasses=["vector_cosine_ops"]),
            GinIndex(name="chunk_search_vector_gin", fields=["search_vector"]),
            models.Index(name="chunk_workspace_source", fields=["workspace", "source_type"]),
            models.Index(name="chunk_legal_doc_path", fields=["legal_document", "path"]),
            models.Index(name="chunk_user_file_path", fields=["user_file", "path"]),
            models.Index(name="chunk_assessment_path", fields=["assessment", "path"]),
        ]
        constraints = [
            models.CheckConstraint(
                name="chunk_exactly_one_source",
                condition=(
                    models.Q(source_type="LEGAL_DOCUMENT", legal_document__isnull=False,
                             user_file__isnull=True, assessment__isnull=True, workspace__isnull=True)
                    | models.Q(source_type="USER_FILE", user_file__isnull=False,
                               legal_document__isnull=True, assessment__isnull=True, workspace__isnull=False)
                    | models.Q(source_type="ASSESSMENT", assessment__isnull=False,
                               legal_document__isnull=True, user_file__isnull=True, workspace__isnull=False)
                ),
            ),
        ]
        verbose_name = "textavsnitt"
        verbose_name_plural = "textavsnitt"

    def __str__(self) -> str:
        return self.header

    @property
    def source(self) -> LegalDocument | UserFile | Assessment | None:
        return self.legal_document or self.user_file or self.assessment
