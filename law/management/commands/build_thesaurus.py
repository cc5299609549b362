"""Write the project's compact copy of the Swedish thesaurus: data/thesaurus/synonyms-sv.tsv.gz.

    manage.py build_thesaurus [--source /usr/share/mythes/th_sv_SE_v2.dat] [--out …]

The source is Debian's `mythes-sv` (Folkets synonymlexikon as LibreOffice ships it; `apt-get install
mythes-sv`). Same input, byte-identical output (law.thesaurus).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from law.thesaurus import default_path, parse_mythes, write_synonyms

MYTHES_SV = Path("/usr/share/mythes/th_sv_SE_v2.dat")


class Command(BaseCommand):
    help = "Skriv projektets kompakta kopia av den svenska synonymordlistan (mythes-sv)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--source", default=str(MYTHES_SV))
        parser.add_argument("--out", default=str(default_path()))

    def handle(self, *args: Any, **opts: Any) -> None:
        source = Path(opts["source"])
        try:
            raw = source.read_bytes()
        except OSError as exc:
            raise CommandError(f"kan inte läsa {source}: {exc} (apt-get install mythes-sv)") from exc
        encoding = raw.split(b"\n", 1)[0].strip().decode("ascii", "replace") or "utf-8"
        try:
            text = raw.decode(encoding)
        except (LookupError, UnicodeDecodeError) as exc:
            raise CommandError(f"{source} är ingen MyThes-fil i {encoding!r}: {exc}") from exc
        synonyms = parse_mythes(text)
        if not synonyms:
            raise CommandError(f"{source} innehåller inga synonymer")
        write_synonyms(synonyms, Path(opts["out"]))
        pairs = sum(len(words) for words in synonyms.values())
        self.stdout.write(f"{len(synonyms)} ord, {pairs} synonympar (åt båda hållen) skrivna till {opts['out']}")
