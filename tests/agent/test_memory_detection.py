"""Detection of facts worth remembering: a table of statements (with what they propose) and
questions or suppositions (which propose nothing)."""

from __future__ import annotations

import pytest

from agent.memory.detection import detect

# (message, {(kind, field): value}) -- an empty dict means: propose nothing.
TABLE = [
    # Swedish statements about the organisation
    ("Vi är 45 anställda.", {("profile", "employee_count"): 45}),
    ("vi har ungefär 120 anställda på två orter", {("profile", "employee_count"): 120}),
    ("Företaget har 1 200 medarbetare", {("profile", "employee_count"): 1200}),
    ("Vi är 45 anställda, vad gäller för oss vid uppsägning?", {("profile", "employee_count"): 45}),
    ("Vi har kollektivavtal med Unionen", {("profile", "has_collective_agreement"): True,
                                           ("profile", "collective_agreement"): "Unionen"}),
    ("Vi har kollektivavtal", {("profile", "has_collective_agreement"): True}),
    ("Vi har inget kollektivavtal.", {("profile", "has_collective_agreement"): False}),
    ("Vi saknar kollektivavtal men följer praxis", {("profile", "has_collective_agreement"): False}),
    ("Vi omfattas av kollektivavtal via Almega och Unionen",
     {("profile", "has_collective_agreement"): True, ("profile", "collective_agreement"): "Almega"}),
    ("Vi är en kommun i Norrland", {("profile", "sector"): "public"}),
    ("Vi är ett privat företag", {("profile", "sector"): "private"}),
    ("Vi är ett bemanningsföretag", {("profile", "industry"): "Bemanning"}),
    ("Vi är verksamma inom byggbranschen", {("profile", "industry"): "Byggbranschen"}),
    ("Vår SNI-kod är 78.200", {("profile", "sni_code"): "78.200"}),
    ("Vi behandlar känsliga personuppgifter om patienter", {("profile", "processes_sensitive_data"): True}),
    ("Vi behandlar inga känsliga personuppgifter", {("profile", "processes_sensitive_data"): False}),
    ("Vi har vårt huvudkontor i Umeå", {("profile", "location"): "Umeå"}),
    ("Kom ihåg att vi har verksamhet i Norge", {("fact", "text"): "vi har verksamhet i Norge"}),
    # Swedish statements about the writer
    ("Jag jobbar som HR-chef", {("preference", "role"): "HR-chef"}),
    ("Jag är personalansvarig på ett lager", {("preference", "role"): "Personalansvarig"}),
    ("Förklara som för en nybörjare", {("preference", "expertise"): "novice"}),
    ("Jag är inte jurist, svara kort", {("preference", "expertise"): "novice",
                                        ("preference", "answer_length"): "short"}),
    ("Jag är jurist", {("preference", "expertise"): "expert"}),
    ("Svara på engelska", {("preference", "language"): "en"}),
    ("Svara utförligt på enkel svenska", {("preference", "answer_length"): "detailed",
                                          ("preference", "tone"): "plain"}),
    # English statements
    ("We have 300 employees", {("profile", "employee_count"): 300}),
    ("We have a collective agreement with Unionen", {("profile", "has_collective_agreement"): True,
                                                     ("profile", "collective_agreement"): "Unionen"}),
    ("We have no collective agreement", {("profile", "has_collective_agreement"): False}),
    ("We are a municipality", {("profile", "sector"): "public"}),
    ("We are based in Gothenburg", {("profile", "location"): "Gothenburg"}),
    ("We process health data", {("profile", "processes_sensitive_data"): True}),
    ("I'm not a lawyer, answer in English", {("preference", "expertise"): "novice",
                                             ("preference", "language"): "en"}),
    ("I work as an HR manager", {("preference", "role"): "HR manager"}),
    ("Keep it short please", {("preference", "answer_length"): "short"}),
    ("Explain it in plain English", {("preference", "tone"): "plain"}),
    # Questions and suppositions: nothing
    ("Har vi kollektivavtal?", {}),
    ("har vi kollektivavtal", {}),
    ("Vi har kollektivavtal?", {}),
    ("Måste vi ha kollektivavtal med Unionen?", {}),
    ("Om vi är 60 anställda, gäller visselblåsarlagen då?", {}),
    ("Vad gäller om vi är 45 anställda?", {}),
    ("Hur många anställda måste vi vara för att ha skyddsombud?", {}),
    ("Behöver vi behandla känsliga personuppgifter?", {}),
    ("Kan du svara på engelska?", {}),
    ("Do we need a collective agreement?", {}),
    ("If we have 50 employees, what applies?", {}),
    ("Are we a public authority?", {}),
    ("Vad säger 3 kap. 2 a § arbetsmiljölagen?", {}),
    ("Vilka regler gäller för turordning vid uppsägning?", {}),
    ("Hej!", {}),
]


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 40
    assert sum(1 for _, expected in TABLE if not expected) >= 12


@pytest.mark.parametrize(("message", "expected"), TABLE, ids=[m[:40] for m, _ in TABLE])
def test_detection(message: str, expected: dict[tuple[str, str], object]) -> None:
    found = {(p.kind, p.field): p.value for p in detect(message)}
    assert found == expected


def test_every_proposal_has_a_swedish_label() -> None:
    for proposal in detect("Vi är 45 anställda och vi har kollektivavtal med Unionen. Jag jobbar som HR-chef"):
        assert proposal.label and ":" in proposal.label
    labels = [p.label for p in detect("Vi är 45 anställda")]
    assert labels == ["Antal anställda: 45"]
