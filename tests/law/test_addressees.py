"""law.addressees: which authority a statute governs the own work of, on titles of our own."""

from __future__ import annotations

import pytest

from law.addressees import AddresseeFinder, authority_names, genitive

INSTRUCTIONS = [
    "Förordning (2090:20) med instruktion för Hundverket",
    "Förordning (2090:21) med instruktion för Nämnden för provfiske",
    "Förordning (2090:22) med instruktion för Provkassan",
]


@pytest.fixture
def finder() -> AddresseeFinder:
    return AddresseeFinder(authority_names(INSTRUCTIONS, agencies=["Katthuset"]))


def test_authorities_are_read_from_instructions_and_regulation_issuers() -> None:
    assert authority_names([*INSTRUCTIONS, "Lag (2090:1) om tillsyn över hundar"], agencies=["Katthuset"]) == {
        "Hundverket", "Nämnden för provfiske", "Provkassan", "Katthuset"}


def test_a_lower_case_or_bracketed_instruction_names_no_authority() -> None:
    assert authority_names(["Förordning (2090:23) med instruktion för de lokala nämnderna",
                            "Förordning (2090:24) med instruktion för Provrådet (PR)"]) == set()


@pytest.mark.parametrize("name, form", [("Hundverket", "Hundverkets"), ("Nämnden för provfiske", "Nämnden för provfiskes"),
                                        ("Provkollegium", "Provkollegiums"), ("Provfors", "Provfors")])
def test_genitive(name: str, form: str) -> None:
    assert genitive(name) == form


@pytest.mark.parametrize("title, addressee", [
    ("Förordning (2090:20) med instruktion för Hundverket", "Hundverket"),
    ("Lag (2090:30) om Hundverkets behandling av personuppgifter", "Hundverket"),
    ("Lag (2090:31) om hundverkets register", "Hundverket"),  # the title's own case does not matter
    ("Förordning (2090:32) om behandling av personuppgifter vid Nämnden för provfiske", "Nämnden för provfiske"),
    ("Förordning (2090:33) om avgifter hos Provkassan", "Provkassan"),
    ("Förordning (2090:34) om Katthusets tillsyn", "Katthuset"),
])
def test_a_title_about_an_authoritys_own_work_names_it(finder: AddresseeFinder, title: str, addressee: str) -> None:
    assert finder.addressee(title) == addressee


@pytest.mark.parametrize("title", [
    "Lag (2090:1) om tillsyn över hundar",
    # The authority named elsewhere: those it supervises pay, or its rules are repealed for everyone.
    "Förordning (2090:40) om avgifter för finansiering av Hundverkets verksamhet",
    "Lag (2090:41) om upphävande av Hundverkets föreskrifter",
    # A word that starts with a name is not the name.
    "Lag (2090:42) om Hundverketsamverkan",
    "Förordning (2090:43) om stöd till Provkassanlån",
])
def test_a_title_naming_no_authority_or_naming_it_elsewhere_has_none(finder: AddresseeFinder, title: str) -> None:
    assert finder.addressee(title) == ""


def test_the_longest_name_wins() -> None:
    finder = AddresseeFinder({"Provverket", "Provverket för fiske"})
    assert finder.addressee("Lag (2090:50) om behandling av personuppgifter vid Provverket för fiske") == \
        "Provverket för fiske"


def test_a_corpus_without_instructions_finds_none() -> None:
    assert AddresseeFinder(set()).addressee("Lag (2090:30) om Hundverkets behandling av personuppgifter") == ""
