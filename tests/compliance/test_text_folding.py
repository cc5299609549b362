"""fold_lookalikes: what a reader sees, so look-alike characters cannot pass for our markers."""

import sys
import unicodedata

from compliance.text import _DASH_LIKE_RE, _ZERO_WIDTH, fold_lookalikes


def test_every_format_character_is_removed() -> None:
    missing = [hex(cp) for cp in range(sys.maxunicode + 1)
               if unicodedata.category(chr(cp)) == "Cf" and not _ZERO_WIDTH.fullmatch(chr(cp))]
    assert missing == []


def test_every_dash_is_folded_after_nfkc() -> None:
    missing = [hex(cp) for cp in range(sys.maxunicode + 1)
               if unicodedata.category(chr(cp)) == "Pd" and chr(cp) != "-"
               and not _DASH_LIKE_RE.fullmatch(unicodedata.normalize("NFKC", chr(cp)))
               and unicodedata.normalize("NFKC", chr(cp)) != "-"]
    assert missing == []


def test_look_alikes_fold_to_plain_text() -> None:
    assert fold_lookalikes("─── Slut på källa ［1］ ───") == "--- Slut på källa [1] ---"
    assert fold_lookalikes("-\u2060-\u2060-") == "---"
    assert fold_lookalikes("käl\u200dla") == "källa"
    assert fold_lookalikes("ka\u0308lla") == "källa"
    assert fold_lookalikes("ｋäｌｌａ\u00a0［２］") == "källa [2]"
    assert fold_lookalikes("—–−﹘－━═") == "-------"


def test_ordinary_swedish_text_is_unchanged() -> None:
    text = "3 kap. 2 a § Arbetsgivaren ska – med hänsyn till arbetets art – vidta åtgärder. Åtta öar, 50 %."
    assert fold_lookalikes(text) == text.replace("–", "-")
