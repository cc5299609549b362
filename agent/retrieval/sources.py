"""What retrieval hands to the rest of the agent: one ranked, citable chunk."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from chunks.chunking import ADVICE_LABEL
from compliance.models import document_kind_label

# What a source is, as the answer's reader and the model see it. A statute's kind is the corpus's own
# classification of its title (law.sfs_corpus.content_type_for), stored on LegalDocument.content_type
# (compliance.models.document_kind_label); an agency regulation names its series ("Föreskrift (AFS)").
# Units that are not rules: an agency's allmänna råd and an EU regulation's recitals (chunks.chunking
# writes these words into their citations).
ADVICE_KIND = "Allmänt råd"
RECITAL_KIND = "Skäl"
NOT_BINDING_KINDS = frozenset({ADVICE_KIND, RECITAL_KIND})
OWN_KINDS = {"USER_FILE": "Er fil", "ASSESSMENT": "Er bedömning"}
OWN_SOURCE_TYPES = frozenset(OWN_KINDS)


def source_kind(source_type: str, content_type: str = "", document_number: str = "", citation: str = "") -> str:
    """"Lag", "Förordning", "Föreskrift (AFS)", "EU-förordning", "Allmänt råd", "Skäl", "Er fil" or
    "Er bedömning" ("Författning" for a statute of unknown kind)."""
    if source_type == "LEGAL_DOCUMENT":
        if ADVICE_LABEL in (citation or "") or (citation or "").endswith("allmänna råd"):
            return ADVICE_KIND
        if content_type == "EU_REGULATION" and (citation or "").startswith("skäl"):
            return RECITAL_KIND
        # Every kind of the statute book has its badge ("Grundlag", "Tillkännagivande", …); "Författning" else.
        return document_kind_label(content_type, document_number)
    return OWN_KINDS.get(source_type, "Källa")


@dataclass
class RetrievedChunk:
    chunk_id: int
    source_type: str  # LEGAL_DOCUMENT / USER_FILE / ASSESSMENT
    source_id: int  # the LegalDocument, UserFile or Assessment id
    document_number: str  # the SFS number for statutes, "" otherwise
    document_title: str
    header: str  # "Arbetsmiljölag (1977:1160) > 3 kap. Allmänna skyldigheter > 2 a §"
    path: str  # sorts in document order within its source
    ordinal: int
    citation: str  # "3 kap. 2 a §", "Sida 3", ...
    text: str
    token_count: int
    workspace_id: int | None = None
    page: int | None = None
    content_type: str = ""  # SFS_LAW / SFS_ORDINANCE / AGENCY_REGULATION for statutes
    # The chapter the unit sits in ("3", "2 a"), as the chunker stored it; "" outside any chapter. Not always in the
    # citation: a few laws number their §§ through all chapters ("26 j §" in 2 a kap.).
    chapter: str = ""
    score: float = 0.0  # fused score, higher is better
    vector_similarity: float | None = None  # cosine similarity, when the vector search found it
    keyword_rank: float | None = None  # BM25 score, when the keyword search found it
    reference_match: bool = False  # the question cited exactly this section
    # Set for a source from another workspace the question named (agent.answering.prepare); "" for the current one's.
    workspace_name: str = ""
    workspace_slug: str = ""
    # Set by agent.retrieval.dating: an own source's date (ISO) and what its card says about dates.
    source_date: str = ""
    date_label: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return source_kind(self.source_type, self.content_type, self.document_number, self.citation)

    @property
    def unit(self) -> str:
        """The unit the chunk is a part of in its document (a § version: two temporal versions of one § are two
        units with one citation), the first part of its path."""
        return self.path.split(".", 1)[0]

    @property
    def document_key(self) -> str:
        return f"{self.source_type}:{self.source_id}"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["document_key"] = self.document_key
        data["kind"] = self.kind
        return data
