"""A Swedish thesaurus: everyday words and their synonyms, for the bridges between a question and the law.

People ask "hur länge får vi spara …" where the law writes "lagras" or "förvaras"; "anställda" where it
writes "arbetstagare". The statutes cannot say that themselves (a definition § explains a term, it does
not list the words of practice for it), so this one bridge comes from outside the corpus: Folkets
synonymlexikon (Viggo Kann, KTH, 2009) as Debian's `mythes-sv` package ships it for LibreOffice
(`/usr/share/mythes/th_sv_SE_v2.dat`). `manage.py build_thesaurus` turns that file into the compact one the
project ships (data/thesaurus/, with its provenance and the licence's notice), so neither the package nor
the network is needed to run.

Only single words are kept: a multi-word synonym ("ta hand om") is no keyword. The relation is made
symmetric (the dictionary lists "lagra" under "spara" but not always the reverse), and nothing is chained:
a synonym's synonyms are not followed, which is where a thesaurus drifts ("spara" -> "hushålla" ->
"ekonomisera").
"""

from __future__ import annotations

import gzip
import re
from collections import defaultdict
from pathlib import Path

from django.conf import settings

__all__ = ["default_path", "parse_mythes", "read_synonyms", "write_synonyms"]

_SINGLE_WORD = re.compile(r"^[a-zåäöéü]+(?:-[a-zåäöéü]+)?$")
MIN_WORD_LENGTH = 3


def default_path() -> Path:
    return Path(settings.BASE_DIR) / "data" / "thesaurus" / "synonyms-sv.tsv.gz"


def _word(text: str) -> str | None:
    """The entry as a lower-case single word, or None (phrases, annotations such as "(vard.)", short words)."""
    word = re.sub(r"\s*\([^)]*\)\s*", " ", text).strip().lower()
    if len(word) < MIN_WORD_LENGTH or not _SINGLE_WORD.match(word):
        return None
    return word


def parse_mythes(text: str) -> dict[str, list[str]]:
    """The word -> synonyms relation of a MyThes data file (its first line names the encoding; then entries
    "word|n" followed by n lines "part of speech|synonym|synonym…"), single words only, made symmetric."""
    lines = text.split("\n")
    related: dict[str, set[str]] = defaultdict(set)
    i = 1  # line 0 is the encoding
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        head, sep, count = line.rpartition("|")
        if not sep or not count.isdigit():
            continue
        word = _word(head)
        senses = lines[i:i + int(count)]
        i += int(count)
        if word is None:
            continue
        for sense in senses:
            for entry in sense.split("|")[1:]:
                synonym = _word(entry)
                if synonym and synonym != word:
                    related[word].add(synonym)
                    related[synonym].add(word)
    return {word: sorted(synonyms) for word, synonyms in sorted(related.items())}


def write_synonyms(synonyms: dict[str, list[str]], path: Path) -> None:
    """One line per word, "word<TAB>synonym|synonym…", gzipped without a timestamp: the same input gives the
    same bytes."""
    body = "".join(f"{word}\t{'|'.join(words)}\n" for word, words in sorted(synonyms.items()) if words)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as out:
        out.write(body.encode("utf-8"))


def read_synonyms(path: Path | None = None) -> dict[str, list[str]]:
    """The shipped relation; an absent file is an empty thesaurus (the bridge then adds nothing)."""
    path = path or default_path()
    if not path.exists():
        return {}
    out: dict[str, list[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            word, sep, rest = line.rstrip("\n").partition("\t")
            if sep and rest:
                out[word] = rest.split("|")
    return out
