"""Speed of the legal reference parser (law.legal_refs), printed as JSON.

Three parts:

* `adversarial`: pathological inputs (long runs of numbers, dashes, brackets,
  statute names, subdivisions). Each is parsed at its size and at twice its
  size; `ratio` is the time of the doubled input over the single one, so a
  linear parser stays near 2 and a quadratic one near 4.
* `corpus`: the statutes' own texts from the SFS corpus, parsed with
  `self_sfs`, as throughput.
* `questions`: short questions that cite sections, as per-call latency.

No database is used: the statute directory comes from data/sfs/index.tsv.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agent.evaluation.benchmarking import latency_summary, machine_info, ms_since, write_json
from law.legal_refs import StatuteDirectory, analyse_references, find_sfs_numbers
from law.sfs_corpus import read_corpus

# (name, unit, repetitions at scale 1): the unit repeated is the input.
ADVERSARIAL = [
    ("dashes", "a-", 50_000),
    ("numbers", "1 ", 50_000),
    ("number_ranges", "1-", 50_000),
    ("number_list_then_section", "1, ", 33_000),
    ("chapters", "2 kap. ", 14_000),
    ("open_brackets", "(", 100_000),
    ("temporal_markers", "/Träder i kraft ", 6_000),
    ("emoji_nul_section", "😀\x00§", 33_000),
    ("statute_names", "arbetsmiljölagens", 6_000),
    ("sfs_prefixes", "SFS 1977:", 11_000),
    ("stycken", "första stycket ", 7_000),
    ("stycke_lists", "1 st. och ", 10_000),
    ("punkt_after_section", "8 § 2 eller ", 8_000),
    ("lettered_punkter", "5 § c och ", 10_000),
    ("section_ranges", "1-200 § ", 12_000),
    ("chapter_section_ranges", "1 kap. 1-200 §§, ", 6_000),
    ("abbreviation_first", "LAS 7 § ", 12_000),
    ("carried_statute", "Enligt LAS gäller 7 §. ", 5_000),
]

QUESTIONS = [
    "Vad säger 3 kap. 2 a § arbetsmiljölagen?",
    "Gäller 7 § första stycket LAS även vid omplacering?",
    "Vad innebär 8 § 2 eller 9 § 1 konsumentköplagen (2022:260)?",
    "Hur tolkas 24 kap. 2 a § 3 miljöbalken?",
    "Vad följer av 1 §, 3 §, 5 § c och 9 § diskrimineringslagen?",
    "Vad säger 3 kap. 2 § 1 st. och 2 st. samt 4 kap. 1 § arbetsmiljölagen?",
    "Jag läser semesterlagen. Hur räknas semesterlön enligt 16 § samma lag?",
    "Enligt BrB 3:1 och 3:2, vad skiljer mord från dråp?",
]


@dataclass(frozen=True)
class _Timing:
    """One parse of an input: how long it took (ms) and how many references it found."""

    ms: float
    references: int


def _timed(text: str, directory: StatuteDirectory) -> _Timing:
    t0 = time.perf_counter()
    refs = analyse_references(text, directory)
    find_sfs_numbers(text)
    return _Timing(ms=ms_since(t0), references=len(refs))


class Command(BaseCommand):
    help = "Time the legal reference parser on pathological inputs, the statutes and questions; prints JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--scale", type=float, default=1.0,
                            help="multiplies the size of every adversarial input (default 1: about 100k characters)")
        parser.add_argument("--statutes", type=int, default=0, help="parse only the first N statutes (0: all)")
        parser.add_argument("--rounds", type=int, default=20, help="times each question is parsed")
        parser.add_argument("--json", action="store_true", help="accepted like the other bench commands; JSON is always printed")

    def handle(self, *args: Any, **opts: Any) -> None:
        scale = opts["scale"]
        if scale <= 0 or opts["rounds"] < 1 or opts["statutes"] < 0:
            raise CommandError("--scale must be > 0, --rounds >= 1 and --statutes >= 0")
        directory = StatuteDirectory.from_index_tsv(settings.BASE_DIR / "data" / "sfs" / "index.tsv")

        adversarial = []
        for name, unit, reps in ADVERSARIAL:
            n = max(1, int(reps * scale))
            text = unit * n
            single = _timed(text, directory)
            doubled = _timed(unit * (2 * n), directory)
            adversarial.append({
                "name": name, "chars": len(text), "ms": round(single.ms, 2), "references": single.references,
                "ms_doubled": round(doubled.ms, 2),
                "ratio": round(doubled.ms / single.ms, 2) if single.ms > 0 else None,
            })

        statutes = chars = found = 0
        corpus_ms = 0.0
        for record in read_corpus(settings.SFS_CORPUS_PATH):
            if opts["statutes"] and statutes >= opts["statutes"]:
                break
            t0 = time.perf_counter()
            found += len(analyse_references(record["text"], directory, self_sfs=record["sfs"]))
            corpus_ms += ms_since(t0)
            statutes += 1
            chars += len(record["text"])

        latencies: list[float] = []
        for _ in range(opts["rounds"]):
            for question in QUESTIONS:
                t0 = time.perf_counter()
                analyse_references(question, directory)
                latencies.append(ms_since(t0))

        worst = max((a["ratio"] for a in adversarial if a["ratio"] is not None), default=None)
        write_json(self.stdout, {
            "machine": machine_info(),
            "scale": scale,
            "adversarial": adversarial,
            "adversarial_max_ms": round(max(a["ms"] for a in adversarial), 2),
            "adversarial_max_ratio": worst,
            "corpus": {
                "statutes": statutes, "chars": chars, "references": found, "ms": round(corpus_ms, 1),
                "chars_per_ms": round(chars / corpus_ms, 1) if corpus_ms > 0 else None,
            },
            "questions": latency_summary(latencies, digits=3),
        })
