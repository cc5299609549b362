"""The retrieval engine: how a question becomes SQL and comes back as ranked sources.

query_analysis (once per turn: keywords, legal references, dates, workspace names) → hybrid (one SQL:
the vector half and the BM25 half of keyword_search, fused, reference boosts, the relevance floor) →
rerank (optional) → dating (the version in force, dates on cards). law.legal_refs parses references and
law.statute_directory caches the documents a question may name; workspace_names caches the workspaces it may
name, cache keeps results, sources is the result type every layer above reads, warmup loads the per-process
caches at start.

The entry point is `hybrid.retrieve_context`.
"""
