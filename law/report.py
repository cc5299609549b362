"""The check of the diff against the amendment tags, over every statute that has a newer version.

Compares files, not the database: the 2024 snapshot (a corpus file, `sfs_all.jsonl.gz` or the bundled
`sfs.jsonl.gz`) against rättsdatabaser's records, so the figures cover all statutes with a newer version,
loaded or not.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from law.amendment_notes import record_notes
from law.diff import REPEALED, TagAgreement, diff_statute
from law.sfs_corpus import read_corpus
from law.sfs_records import RecordError, parse_record, read_records, sfs_key


@dataclass
class DiffReport:
    statutes_compared: int = 0
    changes_by_kind: Counter = field(default_factory=Counter)
    # Repealed units no stub, marker or amending act's notes names the act of.
    repealed_without_act: int = 0
    agreement: TagAgreement = field(default_factory=TagAgreement)
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        a = self.agreement
        return {
            "statutes_compared": self.statutes_compared,
            "changes_by_kind": dict(sorted(self.changes_by_kind.items())),
            "repealed_without_act": self.repealed_without_act,
            "tag_changed": a.tag_changed,
            "tag_changed_with_text_change": a.tag_changed_and_text_changed,
            "share_tag_changed_showing_change": a.tag_changed_share,
            "text_changed": a.text_changed,
            "text_changed_with_new_tag": a.text_changed_and_new_tag,
            "share_text_changed_with_new_tag": a.text_changed_share,
            "errors": self.errors,
        }


def diff_report(baseline: Path, records: Path) -> DiffReport:
    old = {r["sfs"]: r for r in read_corpus(baseline)}
    report = DiffReport()
    for line in read_records(records):
        if line.error:
            report.errors.append(f"{line.name}: {line.error}")
            continue
        try:
            record = parse_record(line.record)
        except RecordError as exc:
            report.errors.append(f"{line.name}: {exc}")
            continue
        before = old.get(record.sfs)
        if before is None or record.repealed:
            continue
        # The same andringInford with another text is a corrected consolidation: newer too.
        if sfs_key(record.amended_through) < sfs_key(before.get("amended_through")):
            continue
        notes = record_notes(record, after=before.get("amended_through", ""))
        diff = diff_statute(before["text"], record.text, record.sfs, in_force_by_act=notes.in_force,
                            repeals=notes.repeals, renumbered=notes.renumbered)
        report.statutes_compared += 1
        report.changes_by_kind.update(diff.counts())
        report.repealed_without_act += sum(1 for c in diff.changes if c.kind == REPEALED and not c.amending_sfs)
        report.agreement.add(diff.agreement)
    return report
