"""The parse-quality check: coverage of the PDF's words, § order and bilagor, on every file."""

from __future__ import annotations

import copy
import json
import logging
from dataclasses import asdict
from pathlib import Path

import pytest

from law.parsers.foreskrift import parse_regulation
from law.parsers.pdf_lines import read_pages
from law.quality import COVERAGE_TARGET, check_file, coverage, order_exceptions

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHIPPED_SUMMARY = Path(__file__).resolve().parents[2] / "data" / "foreskrifter" / "quality.json"
logging.getLogger("pypdf").setLevel(logging.ERROR)


def test_coverage_notices_a_lost_unit() -> None:
    path = FIXTURES / "AFS-2023-1.pdf"
    regulation = parse_regulation(path)
    pages = read_pages(path)
    covered = coverage(regulation, pages)
    assert covered.share >= COVERAGE_TARGET and covered.missing == []
    damaged = copy.deepcopy(regulation)
    damaged.units = [u for u in damaged.units if u.citation != "11 § allmänna råd"]
    covered = coverage(damaged, pages)
    assert covered.share < 0.95 and "varningssignaler" in covered.missing


def test_order_exceptions_are_reported() -> None:
    regulation = copy.deepcopy(parse_regulation(FIXTURES / "AFS-2023-1.pdf"))
    assert order_exceptions(regulation) == []
    sections = regulation.units_of("paragraf")
    sections[4].section = "2"
    assert order_exceptions(regulation) == ["5 § efter 4 §"]


def test_the_shipped_summary_covers_every_file_with_high_coverage() -> None:
    """The summary `python -m law.extract` wrote beside the extracted regulations (every agency PDF)."""
    summary = json.loads(SHIPPED_SUMMARY.read_text(encoding="utf-8"))
    assert summary["files"] == 166
    # ELSÄK-FS 2003:3 is a scanned image without a text layer: reported, not parsed.
    assert list(summary["errors"]) == ["ELSÄK-FS-2003-3.pdf"]
    low = {r["file"]: r["coverage"] for r in summary["per_file"] if r["coverage"] < COVERAGE_TARGET}
    assert low == {}
    assert summary["coverage_min"] >= COVERAGE_TARGET
    afs = summary["by_series"]["AFS"]
    assert afs["files"] == 15 and afs["paragraphs"] >= 1800 and afs["allmanna_rad"] >= 400
    # No AFS has a § out of order or a bilaga it mentions but lost.
    assert not [f for f in summary["problems"] if f.startswith("AFS")]


@pytest.mark.parametrize("name", ["AFS-2023-1.pdf", "AFS-2023-10.pdf", "BFS-2024-1.pdf", "MSBFS-2020-1.pdf"])
def test_the_shipped_summary_is_what_the_parser_gives_now(name: str) -> None:
    """Rows of the shipped summary, checked again from the real PDFs at hand: a parser change that
    moves them means `python -m law.extract` must be run again (data/README.md)."""
    shipped = {r["file"]: r for r in json.loads(SHIPPED_SUMMARY.read_text(encoding="utf-8"))["per_file"]}
    assert asdict(check_file(FIXTURES / name)) == shipped[name]
