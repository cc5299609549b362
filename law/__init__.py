"""The legal corpus: what the law says, read from its official sources.

Parsers and readers of legal texts (the SFS statute text in `sfs_parser`, the bundled corpus in
`sfs_corpus`), the statutes' names and abbreviations (`statute_names`), and the loaders that put them
into `LegalDocument`s (`manage.py load_sfs`). Agency regulations, EU law, versions and per-section
changes belong here too (docs/architecture.md). `LegalDocument` itself stays in compliance.models,
where its migrations are.

A layer below chunks/ (ingestion chunks what is parsed here) and above compliance/.
"""
