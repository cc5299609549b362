"""Parser for an EU regulation in Swedish, as converted to simple HTML (the GDPR).

Input: ../shared/data/eu/gdpr-sv.html (see its README): a preamble `div.preamble`
with the citations (`div#cit_N`) and the recitals (`div#rct_N`, not numbered in their
text), and a body of `section.kapitel` (h2 "KAPITEL I — Allmänna bestämmelser") holding
the articles (h3#art-N "Artikel N — <em>title</em>") and their `<p>`s: a numbered
paragraph opens with "1.   …", a lettered point is a "a)" paragraph followed by its text;
article 4's definitions are numbered the same way (some in tables).

Output: a `ParsedEURegulation` whose articles hold numbered paragraphs (punkter) and
lettered points (led), so that "artikel 6.1 f" names one unit (`find`). Recitals (skäl)
are units of their own, marked not binding.

The GDPR has sections (avsnitt) in chapters III, IV, VI and VII, but this HTML does not
carry their headings (the converter dropped them), so `EUArticle.section` stays None
rather than being filled in from memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup, Tag

# Links go to EUR-Lex's Swedish HTML of the act. The file's own anchors ("art-6") are
# the converter's, not EUR-Lex's; EUR-Lex's HTML of acts in this format identifies an
# article as "art_6" and a recital as "rct_6", so those are the fragments used.
EUR_LEX_URL = "https://eur-lex.europa.eu/legal-content/SV/TXT/?uri=CELEX:{celex}"

_SPACE_RE = re.compile(r"\s+")
_PARAGRAPH_RE = re.compile(r"^(?P<num>\d+)\.(?:\s+(?P<rest>.*))?$", re.S)
_POINT_RE = re.compile(r"^(?P<letter>[a-z])\)(?:\s+(?P<rest>.*))?$", re.S)
_CHAPTER_RE = re.compile(r"^KAPITEL (?P<num>[IVXLC]+)\s*[—–-]\s*(?P<title>.+)$")
_ARTICLE_RE = re.compile(r"^Artikel (?P<num>\d+)\s*[—–-]\s*(?P<title>.+)$")


def clean(text: str) -> str:
    return _SPACE_RE.sub(" ", text.replace("\u00a0", " ")).strip()


@dataclass
class EUPoint:
    """A lettered point ("f") of a paragraph."""

    letter: str
    text: str


@dataclass
class EUParagraph:
    """A numbered paragraph (punkt) of an article; number None for an unnumbered article.

    stycken: the paragraph's own text (its opening and any text after its points).
    """

    number: str | None
    stycken: list[str] = field(default_factory=list)
    points: list[EUPoint] = field(default_factory=list)

    @property
    def text(self) -> str:
        parts = self.stycken[:1] + [f"{p.letter}) {p.text}" for p in self.points] + self.stycken[1:]
        return "\n\n".join(parts)


@dataclass
class EUArticle:
    number: str
    title: str
    chapter: str
    chapter_title: str
    paragraphs: list[EUParagraph]
    url: str
    section: str | None = None

    @property
    def citation(self) -> str:
        return f"artikel {self.number}"

    @property
    def text(self) -> str:
        blocks = []
        for paragraph in self.paragraphs:
            prefix = f"{paragraph.number}. " if paragraph.number else ""
            blocks.append(prefix + paragraph.text)
        return "\n\n".join(blocks)


@dataclass
class Recital:
    """A recital (skäl): explains the articles, is not itself binding."""

    number: int
    text: str
    url: str
    binding: bool = False

    @property
    def citation(self) -> str:
        return f"skäl {self.number}"


@dataclass
class ParsedEURegulation:
    celex: str
    designation: str  # "Förordning (EU) 2016/679"
    number: str  # "(EU) 2016/679"
    title: str
    url: str
    citations: list[str]  # "med beaktande av …" lines of the preamble
    recitals: list[Recital]
    chapters: list[tuple[str, str]]
    articles: list[EUArticle]

    def article(self, number: int | str) -> EUArticle:
        for article in self.articles:
            if article.number == str(number):
                return article
        raise KeyError(f"artikel {number}")

    def find(self, citation: str) -> str:
        """The text of "artikel 6", "artikel 6.1", "artikel 6.1 f" or "skäl 39"; KeyError if none."""
        match = re.fullmatch(r"(?:artikel|art\.) (\d+)(?:\.(\d+))?(?: ([a-z]))?", citation.strip())
        if match is None:
            recital = re.fullmatch(r"skäl (\d+)", citation.strip())
            if recital:
                return self.recitals[int(recital[1]) - 1].text
            raise KeyError(citation)
        article = self.article(match[1])
        if match[2] is None:
            return article.text
        paragraph = next((p for p in article.paragraphs if p.number == match[2]), None)
        if paragraph is None:
            raise KeyError(citation)
        if match[3] is None:
            return paragraph.text
        point = next((p for p in paragraph.points if p.letter == match[3]), None)
        if point is None:
            raise KeyError(citation)
        return point.text

    def to_dict(self) -> dict:
        return {
            "celex": self.celex,
            "designation": self.designation,
            "number": self.number,
            "title": self.title,
            "url": self.url,
            "citations": self.citations,
            "chapters": [{"number": n, "title": t} for n, t in self.chapters],
            "recitals": [{"number": r.number, "citation": r.citation, "binding": r.binding, "url": r.url,
                          "text": r.text} for r in self.recitals],
            "articles": [
                {
                    "number": a.number,
                    "citation": a.citation,
                    "title": a.title,
                    "chapter": a.chapter,
                    "chapter_title": a.chapter_title,
                    "section": a.section,
                    "url": a.url,
                    "paragraphs": [
                        {"number": p.number, "stycken": p.stycken,
                         "points": [{"letter": q.letter, "text": q.text} for q in p.points]}
                        for p in a.paragraphs
                    ],
                }
                for a in self.articles
            ],
        }


def _text(element: Tag) -> str:
    for note in element.select("sup.footnote-ref"):
        note.decompose()  # footnote numbers, whose notes the file does not carry
    return clean(element.get_text())


def parse_eu_regulation(path: Path | str, celex: str = "32016R0679") -> ParsedEURegulation:
    """Parse the Swedish HTML of an EU regulation (written for the GDPR file's layout)."""
    soup = BeautifulSoup(Path(path).read_text(encoding="utf-8"), "lxml")
    base = EUR_LEX_URL.format(celex=celex)
    head = [clean(p.get_text(" ")) for p in soup.select("div.lovhead p")]
    number = next((line for line in head if re.match(r"^\(EU\) \d{4}/\d+$", line)), "")
    title = next((line for line in head if line != number), "")
    preamble = soup.select_one("div.preamble")
    citations = [_text(div) for div in preamble.select("div[id^=cit_]")] if preamble else []
    recitals = []
    for div in preamble.select("div[id^=rct_]") if preamble else []:
        index = int(div["id"].removeprefix("rct_"))
        recitals.append(Recital(index, " ".join(_text(p) for p in div.find_all("p") if _text(p)),
                                f"{base}#rct_{index}"))
    chapters: list[tuple[str, str]] = []
    articles: list[EUArticle] = []
    for section in soup.select("section.kapitel"):
        heading = _CHAPTER_RE.match(_text(section.find("h2")))
        assert heading, section.get("id")
        chapters.append((heading["num"], heading["title"]))
        for h3 in section.find_all("h3"):
            match = _ARTICLE_RE.match(_text(h3))
            assert match, h3
            blocks = _blocks_after(h3)
            articles.append(EUArticle(
                number=match["num"],
                title=match["title"],
                chapter=heading["num"],
                chapter_title=heading["title"],
                paragraphs=_paragraphs(blocks),
                url=f"{base}#art_{match['num']}",
            ))
    return ParsedEURegulation(
        celex=celex,
        designation=f"Förordning {number}",
        number=number,
        title=title,
        url=base,
        citations=citations,
        recitals=recitals,
        chapters=chapters,
        articles=articles,
    )


def _blocks_after(h3: Tag) -> list[str]:
    """The non-empty <p> texts between an article heading and the next one, in order
    (including those inside article 4's tables)."""
    blocks: list[str] = []
    for sibling in h3.find_next_siblings():
        if sibling.name == "h3":
            break
        paragraphs = [sibling] if sibling.name == "p" else sibling.find_all("p")
        blocks.extend(text for text in (_block_text(p) for p in paragraphs) if text)
    return blocks


def _block_text(p: Tag) -> str:
    # A paragraph number is set off by three no-break spaces; article 20.2 lacks the full
    # stop in the source ("2   Vid utövandet …"), so the spaces alone mark it too.
    raw = p.get_text()
    missing_stop = re.match(r"^\s*(\d+)\u00a0{2,}", raw)
    text = _text(p)
    return re.sub(r"^(\d+) ", r"\1. ", text) if missing_stop else text


def _paragraphs(blocks: list[str]) -> list[EUParagraph]:
    result: list[EUParagraph] = []
    current_point: EUPoint | None = None
    awaiting = False  # a bare "1." or "a)" whose text is the next block
    for block in blocks:
        paragraph = _PARAGRAPH_RE.match(block)
        point = _POINT_RE.match(block)
        if paragraph and not awaiting:
            result.append(EUParagraph(paragraph["num"]))
            current_point = None
            rest = clean(paragraph["rest"] or "")
            if rest:
                result[-1].stycken.append(rest)
            awaiting = not rest
        elif point and not awaiting:
            if not result:
                result.append(EUParagraph(None))
            current_point = EUPoint(point["letter"], clean(point["rest"] or ""))
            result[-1].points.append(current_point)
            awaiting = not current_point.text
        else:
            if not result:
                result.append(EUParagraph(None))
            if awaiting and current_point is not None and not current_point.text:
                current_point.text = block
            else:
                # Text after a paragraph's points ("Led f i första stycket …") belongs to
                # the paragraph, not to its last point.
                result[-1].stycken.append(block)
                current_point = None
            awaiting = False
    return result
