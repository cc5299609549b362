"""Stored file names are safe by construction: bounded in bytes, extension kept, nothing hostile."""

from __future__ import annotations

import pytest

from compliance.models import STORED_NAME_MAX_BYTES, display_file_name, stored_file_name


@pytest.mark.parametrize(
    ("original", "expected_suffix"),
    [
        ("ä" * 200 + ".txt", ".txt"),
        ("x" * 400 + ".pdf", ".pdf"),
        ("🙂" * 100 + ".docx", ".docx"),
        ("Rapport 2026 (slutlig).PDF", ".PDF"),
        ("arkiv.tar.gz", ".gz"),
        ("ingen-filändelse", ""),
        ("..", ""),
        (".", ""),
        ("", ""),
        ("../../etc/passwd", ""),
        ("C:\\Users\\a\\policy.md", ".md"),
        ("\u202etxt.exe.md", ".md"),
        ("fil\x00namn\x1f.txt", ".txt"),
        ("namn." + "y" * 60, ""),  # not an extension: too long
        ("namn.ä", ""),  # not an extension: not a plain letter or digit
    ],
)
def test_stored_names_are_bounded_and_keep_the_extension(original: str, expected_suffix: str) -> None:
    stored = stored_file_name(original)
    assert 0 < len(stored.encode()) <= STORED_NAME_MAX_BYTES
    assert stored.endswith(expected_suffix)
    assert "/" not in stored and "\\" not in stored and "\x00" not in stored
    assert stored not in (".", "..") and not stored.startswith(".")
    assert all(ch.isprintable() for ch in stored)


def test_short_ordinary_names_are_kept_as_they_are() -> None:
    assert stored_file_name("Arbetsmiljöpolicy.pdf") == "Arbetsmiljöpolicy.pdf"
    assert stored_file_name("läsmig.md") == "läsmig.md"


def test_truncation_never_splits_a_character() -> None:
    stored = stored_file_name("ä" * 200 + ".txt")
    assert stored == "ä" * ((STORED_NAME_MAX_BYTES - 4) // 2) + ".txt"


def test_display_names_keep_their_extension_within_the_field() -> None:
    assert display_file_name("ä" * 200 + ".txt") == "ä" * 200 + ".txt"
    long_ascii = display_file_name("riktlinje-" * 40 + ".pdf")
    assert long_ascii.endswith(".pdf") and len(long_ascii) <= 250
    assert display_file_name("../mapp/policy.txt") == "policy.txt"
    assert display_file_name("\u202etxt.exe.md") == "txt.exe.md"
    assert display_file_name("") == "fil"
