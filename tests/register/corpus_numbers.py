"""The document numbers the shipped corpus holds: statutes (data/sfs/index.tsv and the records of 2025–26), agency
regulations and the GDPR (data/foreskrifter, data/eu). A rule or template naming anything else would never be suggested."""

from __future__ import annotations

import csv
import gzip
import json
from functools import lru_cache
from pathlib import Path

from django.conf import settings


@lru_cache(maxsize=1)
def shipped_numbers() -> frozenset[str]:
    data = Path(settings.BASE_DIR) / "data"
    with open(data / "sfs" / "index.tsv", encoding="utf-8") as handle:
        found = {row["sfs"] for row in csv.DictReader(handle, delimiter="\t")}
    for path in (data / "foreskrifter" / "foreskrifter.jsonl.gz", data / "eu" / "gdpr.jsonl.gz"):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            found |= {json.loads(line)["designation" if "foreskrifter" in path.name else "number"] for line in handle}
    # The statutes the official records of 2025–26 bring that are in force (`make run` applies them).
    with gzip.open(data / "sfs" / "rkrattsbaser-2026.jsonl.gz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    found |= {record["beteckning"] for record in records if not record.get("upphavdDateTime")}
    return frozenset(found)
