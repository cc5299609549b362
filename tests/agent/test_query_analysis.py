"""Query analysis: keywords, dates, follow-ups, fallbacks."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agent.retrieval.query_analysis import DateRange, analyse_query, extract_dates, in_force_on, keywords
from law.legal_refs import StatuteDirectory, citation

INDEX = Path(__file__).resolve().parents[2] / "data" / "sfs" / "index.tsv"
TODAY = date(2024, 5, 15)  # a Wednesday


@pytest.fixture(autouse=True)
def _media_root() -> None:
    """Shadow the Django-only autouse fixture of tests/conftest.py: pure Python tests."""


@pytest.fixture(scope="module")
def directory() -> StatuteDirectory:
    return StatuteDirectory.from_index_tsv(INDEX)


def test_keywords_drop_stop_words_in_both_languages() -> None:
    assert keywords("Vad säger lagen om att man måste ha skyddsombud?") == ["lagen", "skyddsombud"]
    assert keywords("What are the rules for the working environment?") == ["rules", "working", "environment"]


def test_keywords_keep_numbers_and_sfs_numbers() -> None:
    assert keywords("Vad säger 7 § LAS (1982:80)?") == ["7", "las", "1982:80"]
    assert keywords("3 kap. 2 a § arbetsmiljölagen") == ["3", "kap", "2", "arbetsmiljölagen"]


def test_basic_analysis(directory: StatuteDirectory) -> None:
    qa = analyse_query("Vad säger LAS om turordning vid uppsägning?", directory=directory, today=TODAY)
    assert qa.text == "Vad säger LAS om turordning vid uppsägning?"
    assert qa.keywords == ["las", "turordning", "uppsägning"]
    assert qa.topic_key == "las turordning uppsägning"
    assert qa.sfs_numbers == ["1982:80"]
    assert [r.statute_name for r in qa.references] == ["LAS"]
    assert (qa.is_follow_up, qa.fallback, qa.dates) == (False, False, None)


def test_topic_key_is_order_insensitive() -> None:
    a = analyse_query("turordning vid uppsägning enligt LAS", today=TODAY)
    b = analyse_query("LAS: uppsägning och turordning", today=TODAY)
    assert a.topic_key == b.topic_key


def test_references_and_sfs_numbers(directory: StatuteDirectory) -> None:
    qa = analyse_query("Gäller 3 kap. 2 a § arbetsmiljölagen och SFS 1977:480 för inhyrda?", directory=directory, today=TODAY)
    assert [citation(r) for r in qa.references] == ["3 kap. 2 a §", ""]
    assert qa.sfs_numbers == ["1977:480", "1977:1160"]


@pytest.mark.parametrize(
    "text, start, end",
    [
        ("ändringar förra veckan", date(2024, 5, 6), date(2024, 5, 12)),
        ("nya regler i år", date(2024, 1, 1), date(2024, 12, 31)),
        ("vad ändrades i fjol", date(2023, 1, 1), date(2023, 12, 31)),
        ("vad ändrades förra året", date(2023, 1, 1), date(2023, 12, 31)),
        ("ändringar 2023", date(2023, 1, 1), date(2023, 12, 31)),
        ("ändringar sedan 2020", date(2020, 1, 1), TODAY),
        ("mellan 2019 och 2021", date(2019, 1, 1), date(2021, 12, 31)),
        ("förra månaden", date(2024, 4, 1), date(2024, 4, 30)),
        ("i mars 2023", date(2023, 3, 1), date(2023, 3, 31)),
        ("changes last year", date(2023, 1, 1), date(2023, 12, 31)),
        ("since 2021", date(2021, 1, 1), TODAY),
        ("senaste 2 veckorna", date(2024, 5, 1), TODAY),
    ],
)
def test_dates(text: str, start: date, end: date) -> None:
    rng = extract_dates(text, TODAY)
    assert rng is not None
    assert (rng.start, rng.end) == (start, end)


MIN = date.min
# Swedish and English date phrases against a fixed today (TODAY, Wednesday 15 May 2024).
DATE_TABLE = [
    ("Vilka policyer har vi ändrat sedan 2023?", date(2023, 1, 1), TODAY),
    ("Vad ändrade vi förra året?", date(2023, 1, 1), date(2023, 12, 31)),
    ("Riskbedömningar efter 1 juli 2023", date(2023, 7, 2), TODAY),
    ("Vad gäller efter 1 juli 2024?", date(2024, 7, 2), date(2024, 7, 2)),
    ("Vad laddade vi upp i mars?", date(2024, 3, 1), date(2024, 3, 31)),
    ("Vad hände i december?", date(2023, 12, 1), date(2023, 12, 31)),
    ("Rutiner från före 2020", MIN, date(2019, 12, 31)),
    ("Bedömningar före mars 2024", MIN, date(2024, 2, 29)),
    ("sedan mars", date(2024, 3, 1), TODAY),
    ("efter mars 2024", date(2024, 4, 1), TODAY),
    ("sedan den 1 juli 2023", date(2023, 7, 1), TODAY),
    ("från och med 1 januari 2024", date(2024, 1, 1), TODAY),
    ("fr.o.m. 2022", date(2022, 1, 1), TODAY),
    ("till och med 2022", MIN, date(2022, 12, 31)),
    ("t.o.m. juni 2023", MIN, date(2023, 6, 30)),
    ("policyn från 1 juli 2023", date(2023, 7, 1), TODAY),
    ("ändringen 2023-07-01", date(2023, 7, 1), date(2023, 7, 1)),
    ("de senaste 3 månaderna", date(2024, 2, 15), TODAY),
    ("de senaste två åren", date(2022, 5, 15), TODAY),
    ("för två år sedan", date(2022, 1, 1), date(2022, 12, 31)),
    ("under 2022", date(2022, 1, 1), date(2022, 12, 31)),
    ("mellan mars 2023 och juni 2023", date(2023, 3, 1), date(2023, 6, 30)),
    ("2019–2021", date(2019, 1, 1), date(2021, 12, 31)),
    ("andra kvartalet 2023", date(2023, 4, 1), date(2023, 6, 30)),
    ("K3 2023", date(2023, 7, 1), date(2023, 9, 30)),
    ("första halvåret 2023", date(2023, 1, 1), date(2023, 6, 30)),
    ("i går", date(2024, 5, 14), date(2024, 5, 14)),
    ("i veckan", date(2024, 5, 13), date(2024, 5, 19)),
    ("Which policies changed since 2023?", date(2023, 1, 1), TODAY),
    ("What did we change last year?", date(2023, 1, 1), date(2023, 12, 31)),
    ("assessments before March 2024", MIN, date(2024, 2, 29)),
    ("after July 1, 2023", date(2023, 7, 2), TODAY),
    ("uploaded in March", date(2024, 3, 1), date(2024, 3, 31)),
    ("in March 2023", date(2023, 3, 1), date(2023, 3, 31)),
    ("since July 2023", date(2023, 7, 1), TODAY),
    ("over the last 6 months", date(2023, 11, 15), TODAY),
    ("between 2019 and 2021", date(2019, 1, 1), date(2021, 12, 31)),
    ("until 2022", MIN, date(2022, 12, 31)),
    ("Q2 2023", date(2023, 4, 1), date(2023, 6, 30)),
    ("two years ago", date(2022, 1, 1), date(2022, 12, 31)),
    ("on 1 July 2023", date(2023, 7, 1), date(2023, 7, 1)),
]


@pytest.mark.parametrize("text, start, end", DATE_TABLE)
def test_date_phrase_table(text: str, start: date, end: date) -> None:
    rng = extract_dates(text, TODAY)
    assert rng is not None, text
    assert (rng.start, rng.end) == (start, end), rng.label


def test_a_bare_month_is_its_latest_occurrence() -> None:
    assert extract_dates("i maj", TODAY).start == date(2024, 5, 1)
    assert extract_dates("i juni", TODAY).start == date(2023, 6, 1)
    assert extract_dates("i mars", date(2024, 2, 1)).start == date(2023, 3, 1)


def test_statute_version_day_is_today_inside_the_period_else_its_nearest_end() -> None:
    assert in_force_on(None, TODAY) is None
    assert in_force_on(extract_dates("sedan 2023", TODAY), TODAY) == TODAY
    assert in_force_on(extract_dates("i mars 2021", TODAY), TODAY) == date(2021, 3, 31)
    assert in_force_on(extract_dates("efter 1 juli 2024", TODAY), TODAY) == date(2024, 7, 2)


@pytest.mark.parametrize(
    "text",
    ["Arbetsmiljölag (1977:1160)", "NJA 2005 s. 1", "vi år", "i dagens läge", "prop. 1976/77:149", "(EU) 2016/679",
     "Vad gäller i jul?", "Gäller det maj?", "3 kap. 2 § i lagen", "efter 3 kap. 2 §", "i 7 §"],
)
def test_no_dates(text: str) -> None:
    assert extract_dates(text, TODAY) is None


def test_dates_in_analysis_use_today() -> None:
    qa = analyse_query("Vilka ändringar kom i fjol?", today=TODAY)
    assert qa.dates == DateRange(date(2023, 1, 1), date(2023, 12, 31), "i fjol")


def test_follow_up_combines_last_two_history_messages(directory: StatuteDirectory) -> None:
    history = ["Hej", "Vad gäller för semester?", "Vad säger arbetsmiljölagen om arbetstid?"]
    qa = analyse_query("och för minderåriga?", history, directory=directory, today=TODAY)
    assert qa.is_follow_up and not qa.fallback
    assert qa.text == "Vad gäller för semester? Vad säger arbetsmiljölagen om arbetstid? och för minderåriga?"
    assert qa.keywords[0] == "minderåriga"
    assert "arbetstid" in qa.keywords and "hej" not in qa.keywords
    assert qa.sfs_numbers == ["1977:1160"]


@pytest.mark.parametrize("message", ["What about fines?", "Men om den anställde är sjuk?", "vad gäller för vikarier"])
def test_follow_up_openers(message: str) -> None:
    assert analyse_query(message, ["Vad säger LAS om uppsägning?"], today=TODAY).is_follow_up


def test_follow_up_section_inherits_statute(directory: StatuteDirectory) -> None:
    qa = analyse_query("och 7 §?", ["Vad säger LAS om uppsägning?"], directory=directory, today=TODAY)
    section = [r for r in qa.references if r.section == "7"]
    assert section and section[0].sfs == "1982:80"


def test_long_self_contained_question_is_not_a_follow_up() -> None:
    qa = analyse_query(
        "Vilka krav ställer arbetsmiljölagen på arbetsgivarens systematiska arbetsmiljöarbete?",
        ["Vad säger LAS om uppsägning?"],
        today=TODAY,
    )
    assert not qa.is_follow_up
    assert "uppsägning" not in qa.keywords


def test_short_question_naming_its_own_statute_is_not_a_follow_up() -> None:
    qa = analyse_query("Vad säger semesterlagen?", ["Vad säger LAS om uppsägning?"], today=TODAY)
    assert not qa.is_follow_up


def test_no_history_means_no_follow_up() -> None:
    assert not analyse_query("och för minderåriga?", today=TODAY).is_follow_up


@pytest.mark.parametrize("message", ["", "   ", "😀👍", "och?", "what is it?", "\x00"])
def test_fallback_uses_previous_message(message: str) -> None:
    qa = analyse_query(message, ["Vad säger LAS om turordning?"], today=TODAY)
    assert qa.fallback
    assert qa.text == "Vad säger LAS om turordning?"
    assert qa.keywords == ["las", "turordning"]


def test_fallback_without_history_keeps_stripped_text() -> None:
    qa = analyse_query("  😀  ", today=TODAY)
    assert (qa.fallback, qa.text, qa.keywords, qa.topic_key) == (True, "😀", [], "")
    assert analyse_query("", today=TODAY).text == ""


def test_workspace_mentions() -> None:
    qa = analyse_query(
        "Vad står i personalhandboken och i Avtal 2023 om semester?",
        workspace_names=["Avtal 2023", "Personalhandbok", "Brandskydd"],
        today=TODAY,
    )
    assert qa.workspace_mentions == ["Personalhandbok", "Avtal 2023"]


NAMES = ["Dotterbolaget AB", "Kund X", "Lager", "Acme", "Och", "Hemliga Bolaget AB"]
ORDINARY = {"dotterbolaget", "lager"}  # what the statutes' vocabulary would say


@pytest.mark.parametrize("message, expected", [
    ("Jämför vår semesterpolicy med den i Dotterbolaget AB", ["Dotterbolaget AB"]),
    ("Vad säger dotterbolaget ab om semester?", ["Dotterbolaget AB"]),
    ("Jämför med Dotterbolagets semesterpolicy", ["Dotterbolaget AB"]),
    ("DOTTERBOLAGET AB:s rutiner", ["Dotterbolaget AB"]),
    ("vad står i Kund X:s riskbedömning?", ["Kund X"]),
    ("vad står i kund x riskbedömning?", ["Kund X"]),
    ("Hur ser rutinen ut i Lager jämfört med här?", ["Lager"]),
    ("Vad säger acmes policy?", ["Acme"]),
    ("Jämför Acme och Kund X", ["Acme", "Kund X"]),
    # Ordinary words are no names unless written as one, away from a sentence's start.
    ("Hur många dotterbolag har vi?", []),
    ("Vad gäller för dotterbolaget när moderbolaget säljs?", []),
    ("Dotterbolaget ska ha en policy, eller hur?", []),
    ("Hur förvarar vi kemikalier på lagret?", []),
    ("Lager ska ha brandsläckare.", []),
    ("Och vad gäller då?", []),
    ("Vad står i Kundens avtal?", []),
    ("Hemliga Bolaget", ["Hemliga Bolaget AB"]),
])
def test_workspace_mentions_are_robust(message: str, expected: list[str]) -> None:
    qa = analyse_query(message, workspace_names=NAMES, ordinary_words=ORDINARY, today=TODAY)
    assert qa.workspace_mentions == expected


def test_only_the_given_names_can_match() -> None:
    qa = analyse_query("Vad står i Hemliga Bolaget AB?", workspace_names=["Dotterbolaget AB"], today=TODAY)
    assert qa.workspace_mentions == []


@hsettings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.lists(st.text(max_size=100), max_size=3))
def test_fuzz_never_crashes(message: str, history: list[str]) -> None:
    qa = analyse_query(message, history, today=TODAY, workspace_names=["A(", "[b"])
    assert isinstance(qa.text, str)
    assert qa.topic_key == " ".join(sorted(set(qa.keywords)))
