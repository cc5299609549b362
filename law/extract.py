"""Extract the agency regulations and the GDPR into the compact files the project ships.

    python -m law.extract [--source ../shared/data] [--out data/foreskrifter] [--eu-out data/eu]

Writes `<out>/foreskrifter.jsonl.gz` (one record per regulation: metadata and units, our
own extracted text, no PDFs), `<eu-out>/gdpr.jsonl.gz` (one record: the GDPR) and
`<out>/quality.json` (the parse-quality summary, also printed). Same input, byte-identical
output: records in a fixed order, keys sorted, and a gzip header without a timestamp.
An unreadable PDF is reported by name and left out; the rest is written.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import logging
import sys
from pathlib import Path

from law.parsers.eu import parse_eu_regulation
from law.parsers.foreskrift import ParsedRegulation, number_key, parse_regulation
from law.parsers.pdf_lines import RegulationPdfError
from law.quality import check_file, summarise

# The shared data folder beside the repository.
DEFAULT_SOURCE = Path(__file__).resolve().parents[2] / "shared" / "data"


def write_jsonl_gz(path: Path, records: list[dict]) -> None:
    """Deterministic .jsonl.gz: mtime 0 and no file name in the gzip header."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                 compresslevel=9) as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode())
            fh.write(b"\n")


def regulation_record(regulation: ParsedRegulation, pdf: Path) -> dict:
    record = regulation.to_dict()
    record["kind"] = "föreskrift"
    # Which PDF the text came from, so a later import can tell a changed source.
    record["source_sha256"] = hashlib.sha256(pdf.read_bytes()).hexdigest()
    return record


def _order(path: Path) -> tuple[str, int, int]:
    """Series, year, number: "AFS-2023-2" before "AFS-2023-10"."""
    series, year, number = path.stem.rsplit("-", 2)
    return series, int(year), number_key(number)[0]


def extract(source: Path, out: Path, eu_out: Path) -> dict:
    """Parse every regulation PDF under source/foreskrifter and the GDPR; write the files
    and return the quality summary."""
    records: list[dict] = []
    results = []
    errors: dict[str, str] = {}
    for pdf in sorted((source / "foreskrifter").rglob("*.pdf"), key=_order):
        try:
            regulation = parse_regulation(pdf)
        except RegulationPdfError as error:
            errors[pdf.name] = str(error)
            print(f"Hoppar över {error}", file=sys.stderr)
            continue
        records.append(regulation_record(regulation, pdf))
        results.append(check_file(pdf, regulation))
    write_jsonl_gz(out / "foreskrifter.jsonl.gz", records)
    gdpr = parse_eu_regulation(source / "eu" / "gdpr-sv.html")
    write_jsonl_gz(eu_out / "gdpr.jsonl.gz", [{**gdpr.to_dict(), "kind": "EU-förordning"}])
    summary = summarise(results, errors)
    summary["gdpr"] = {"recitals": len(gdpr.recitals), "chapters": len(gdpr.chapters),
                       "articles": len(gdpr.articles)}
    (out / "quality.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                                      encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Extrahera myndighetsföreskrifter och GDPR till data/.")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=Path("data/foreskrifter"))
    parser.add_argument("--eu-out", type=Path, default=Path("data/eu"))
    args = parser.parse_args(argv)
    # pypdf warns about every font it cannot fully decode; the text is still extracted
    # and the quality check measures what came out.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    summary = extract(args.source, args.out, args.eu_out)
    brief = {key: value for key, value in summary.items() if key != "per_file"}
    print(json.dumps(brief, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
