"""What retrieval hands to the rest of the agent: one ranked, citable chunk."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

# What a source is, as the answer's reader and the model see it. A statute's kind is the corpus's own
# classification of its title (law.sfs_corpus.content_type_for), stored on LegalDocument.content_type.
STATUTE_KINDS = {"SFS_LAW": "Lag", "SFS_ORDINANCE": "Förordning", "AGENCY_REGULATION": "Föreskrift"}
OWN_KINDS = {"USER_FILE": "Er fil", "ASSESSMENT": "Er bedömning"}
OWN_SOURCE_TYPES = frozenset(OWN_KINDS)


def source_kind(source_type: str, content_type: str = "") -> str:
    """"Lag", "Förordning", "Föreskrift", "Er fil" or "Er bedömning" ("Författning" for a statute of unknown kind)."""
    if source_type == "LEGAL_DOCUMENT":
        return STATUTE_KINDS.get(content_type or "", "Författning")
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
        return source_kind(self.source_type, self.content_type)

    @property
    def document_key(self) -> str:
        return f"{self.source_type}:{self.source_id}"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["document_key"] = self.document_key
        return data
