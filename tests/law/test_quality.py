"""The parse-quality check: coverage of the PDF's words, § order and bilagor, on every file."""

from __future__ import annotations

import copy
import logging
from pathlib import Path

import pytest

from law.parsers.foreskrift import parse_regulation
from law.parsers.pdf_lines import read_pages
from law.quality import COVERAGE_TARGET, check_collection, coverage, order_exceptions

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Every agency PDF, as shared beside the repository (../shared/data/foreskrifter).
COLLECTION = Path(__file__).resolve().parents[3] / "shared" / "data" / "foreskrifter"
logging.getLogger("pypdf").setLevel(logging.ERROR)


def test_coverage_notices_a_lost_unit() -> None:
    path = FIXTURES / "AFS-2023-1.pdf"
    regulation = parse_regulation(path)
    pages = read_pages(path)
    share, missing = coverage(regulation, pages)
    assert share >= COVERAGE_TARGET and missing == []
    damaged = copy.deepcopy(regulation)
    damaged.units = [u for u in damaged.units if u.citation != "11 § allmänna råd"]
    share, missing = coverage(damaged, pages)
    assert share < 0.95 and "varningssignaler" in missing


def test_order_exceptions_are_reported() -> None:
    regulation = copy.deepcopy(parse_regulation(FIXTURES / "AFS-2023-1.pdf"))
    assert order_exceptions(regulation) == []
    sections = regulation.units_of("paragraf")
    sections[4].section = "2"
    assert order_exceptions(regulation) == ["5 § efter 4 §"]


@pytest.mark.slow
def test_every_file_parses_with_high_coverage() -> None:
    summary = check_collection(COLLECTION)
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
