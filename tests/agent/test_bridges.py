"""Bridges between a question's words and the statutes' words, mined from the statutes (agent.retrieval.bridges).

Examples of our own from the statutes' text, never from an evaluation set.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.retrieval import bridges
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.keyword_search import keyword_query, split_compounds
from agent.retrieval.spelling import SpellingIndex
from compliance.models import LegalDocument, UserFile, Workspace
from law.definitions import Definition, abbreviations_in, acronyms_in, definitions_in
from law.thesaurus import parse_mythes, read_synonyms, write_synonyms
from tests.agent.test_retrieval import add_file_chunk
from tests.helpers import alice_owning_a_workspace, chunked_statute

# Inkomstskattelagen 11 kap. 11 § (first sentences): the term, then what it means.
PERSONALVARD = ("11 § Personalvårdsförmåner ska inte tas upp. Med personalvårdsförmåner avses förmåner av mindre "
                "värde som inte är en direkt ersättning för utfört arbete utan består av enklare åtgärder för att "
                "skapa trivsel i arbetet eller liknande.")


def test_a_definition_section_maps_its_term_to_its_explanation() -> None:
    found = definitions_in(PERSONALVARD)
    assert [d.term for d in found] == ["personalvårdsförmåner"]
    assert "trivsel i arbetet" in found[0].body


def test_the_other_forms_of_definition() -> None:
    # Arbetsmiljölagen-like "I denna lag avses med …", a list after "betyder", and a numbered list after "följande".
    assert definitions_in("2 § I denna lag avses med arbetstagare den som utför arbete åt en arbetsgivare.") == [
        Definition("arbetstagare", "den som utför arbete åt en arbetsgivare.")]
    listed = definitions_in("2 § I denna lag betyder\n\nkonsument: en fysisk person som handlar huvudsakligen "
                            "för ändamål som faller utanför näringsverksamhet,\n\nnäringsidkare: en fysisk eller "
                            "juridisk person som handlar för ändamål som har samband med den egna näringsverksamheten.")
    assert [d.term for d in listed] == ["konsument", "näringsidkare"]
    numbered = definitions_in("5 § Med lyftanordning avses i detta kapitel följande.\n\n1. Kranar.\n\n2. Truckar.")
    assert numbered[0].term == "lyftanordning" and "Truckar" in numbered[0].body


def test_a_reference_to_a_definition_elsewhere_is_not_a_definition() -> None:
    assert definitions_in("Vad som avses med hemortskommun framgår av 65 kap. 3 §.") == []


def test_abbreviations_and_acronyms_the_text_writes() -> None:
    text = "en stat inom Europeiska ekonomiska samarbetsområdet (EES) eller Schweiz"
    assert [(a.short, a.phrase) for a in abbreviations_in(text)] == [("EES", "Europeiska ekonomiska samarbetsområdet")]
    assert acronyms_in(text) == {"EES"}
    between_commas = ("Den som bedriver systematiskt brandskyddsarbete, SBA, ska dokumentera det. Avtal, t.ex. ABC, "
                      "gäller. Rör av stål, SS, och MALM, MINERAL, TORV.")
    # "ABC" abbreviates no run of words before it; "SS" would stand for one word, "MINERAL" for capitals.
    assert [(a.short, a.phrase) for a in abbreviations_in(between_commas)] == [
        ("SBA", "systematiskt brandskyddsarbete")]
    assert bridges.acronym_tokens("VAD GÄLLER INOM EES?") == []  # a question in capitals is shouting


def test_two_question_words_make_the_compound_a_statute_uses() -> None:
    assert "uppsägningstid" in bridges.compound_candidates(["tid", "uppsägning"])
    assert "arbetsmiljöansvar" in bridges.compound_candidates(["ansvar", "arbetsmiljö"])


# A thesaurus in the MyThes format Debian's mythes-sv ships, entries of our own.
MYTHES = "\n".join(["ISO-8859-1", "spara|1", "-|lagra|bevara|ta vara på", "lagra|1", "(verb)|förvara|spara",
                     "på|1", "-|uppå"])


def test_a_thesaurus_is_read_as_single_words_both_ways(tmp_path: Path) -> None:
    synonyms = parse_mythes(MYTHES)
    assert synonyms["spara"] == ["bevara", "lagra"]  # the phrase "ta vara på" is no keyword
    assert synonyms["förvara"] == ["lagra"] and synonyms["bevara"] == ["spara"]  # made symmetric
    assert "förvara" not in synonyms["spara"]  # never chained through "lagra"
    assert "på" not in synonyms  # too short to be a word of substance
    write_synonyms(synonyms, tmp_path / "a.tsv.gz")
    write_synonyms(synonyms, tmp_path / "b.tsv.gz")
    assert (tmp_path / "a.tsv.gz").read_bytes() == (tmp_path / "b.tsv.gz").read_bytes()
    assert read_synonyms(tmp_path / "a.tsv.gz") == synonyms
    assert read_synonyms(tmp_path / "missing.tsv.gz") == {}


def test_the_shipped_thesaurus_is_there() -> None:
    synonyms = read_synonyms()
    assert len(synonyms) > 10000 and "lagra" in synonyms["spara"]


# --- against the database: a small statute of our own, from real statutes' sentences ---

OWN_STATUTE = "\n\n".join([
    "1 kap. Inledande bestämmelser",
    PERSONALVARD,
    "12 § Förmåner som inte är personalvårdsförmåner ska tas upp som intäkt.",
    "3 kap. Sammanträden",
    "2 § Protokollet las upp för parterna och justerades vid sammanträdet.",
    "4 kap. Utlandet",
    "1 § En stat inom Europeiska ekonomiska samarbetsområdet (EES) likställs med Sverige.",
    "2 § Skatt tas inte ut för den som har hemvist inom Europeiska ekonomiska samarbetsområdet.",
    "5 kap. Uppgifter om kunder",
    "1 § Uppgifterna får inte lagras längre än vad som är nödvändigt.",
    "2 § Den som lagrar uppgifterna ska skydda dem.",
    "3 § Uppgifter som lagras i ett register ska gallras efter tre år.",
    "6 kap. Brandskydd",
    "1 § Den som äger en bro ska bedriva ett systematiskt brandskyddsarbete, SBA, och dokumentera det.",
    "2 § Det systematiska brandskyddsarbetet ska följas upp varje år.",
    "7 kap. Byggprojekt",
    "1 § Byggherren ska utse en Bas-P för planeringen av byggprojektet.",
])

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_statute(loaded: list[LegalDocument]) -> tuple[User, Workspace]:
    chunked_statute("2099:1", "Lag (2099:1) om broar", OWN_STATUTE)
    bridges.forget()
    return alice_owning_a_workspace()


def _keyword(question: str, user: User, ws: Workspace, top_k: int = 5) -> list[tuple[str, str]]:
    options = RetrievalOptions(mode="keyword", use_references=False, top_k=top_k, min_relevance=0)
    return [(c.document_number, c.citation) for c in retrieve_context(question, ws, user=user, options=options).chunks]


def test_the_vocabulary_is_mined_from_the_statutes(own_statute: tuple[User, Workspace]) -> None:
    vocab = bridges.vocabulary()
    assert "EES" in vocab.acronyms and "LAS" not in vocab.acronyms
    assert vocab.expansions["EES"] == ["ekonomisk", "europeisk", "samarbetsområdet"]
    assert "SBA" in vocab.expansions  # written between commas
    assert any(term == ("personalvårdsförmån",) for term, _ in vocab.definitions)


def test_an_abbreviation_written_between_commas_finds_the_sections_that_spell_it_out(own_statute: tuple[User, Workspace]) -> None:
    user, ws = own_statute
    # 2 § never writes "SBA": its spelled-out words bring it right after 1 § (without them it is fifth, under
    # statutes that share "följa upp").
    assert _keyword("Hur ofta ska SBA följas upp?", user, ws, top_k=2) == [("2099:1", "6 kap. 1 §"),
                                                                           ("2099:1", "6 kap. 2 §")]


def test_an_acronym_no_statute_writes_is_not_searched_as_its_homograph(own_statute: tuple[User, Workspace],
                                                                       settings: Settings) -> None:
    user, ws = own_statute
    assert ("2099:1", "3 kap. 2 §") not in _keyword("Vad gäller enligt LAS?", user, ws)
    query = keyword_query("Vad gäller enligt LAS?", [ws.id])
    assert "las" not in query.terms and query.unmatched_weight > 0  # missing, for the relevance threshold
    settings.RETRIEVAL_BRIDGE_ACRONYMS = False
    assert ("2099:1", "3 kap. 2 §") in _keyword("Vad gäller enligt LAS?", user, ws)  # "las upp": read out


def test_an_acronym_the_workspace_writes_is_still_searched_in_its_files(own_statute: tuple[User, Workspace]) -> None:
    user, ws = own_statute
    chunk = add_file_chunk(ws, "Vår rutin enligt LAS gäller alla anställda.", title="Rutin.pdf")
    assert UserFile.objects.filter(pk=chunk.user_file_id, is_private=False).exists()
    assert "las" in keyword_query("Vad gäller enligt LAS?", [ws.id]).terms
    assert ("", "Sida 1") in _keyword("Vad gäller enligt LAS?", user, ws)


def test_an_acronym_a_statute_spells_out_finds_the_spelled_out_words(own_statute: tuple[User, Workspace],
                                                                     settings: Settings) -> None:
    user, ws = own_statute
    assert "samarbetsområdet" in keyword_query("Hemvist inom EES", [ws.id]).terms
    assert _keyword("Hemvist inom EES", user, ws)[0] == ("2099:1", "4 kap. 2 §")  # hemvist and the spelled-out words
    settings.RETRIEVAL_BRIDGE_ACRONYMS = False
    assert "samarbetsområdet" not in keyword_query("Hemvist inom EES", [ws.id]).terms


def test_a_definition_lends_its_term_to_a_question_in_its_explanation_words(own_statute: tuple[User, Workspace],
                                                                            settings: Settings) -> None:
    user, ws = own_statute
    query = keyword_query("Enklare åtgärder för trivsel", [ws.id])
    assert "personalvårdsförmån" in query.terms
    assert ("2099:1", "1 kap. 12 §") in _keyword("Enklare åtgärder för trivsel", user, ws, top_k=20)  # the term only
    settings.RETRIEVAL_BRIDGE_DEFINITIONS = False
    assert "personalvårdsförmån" not in keyword_query("Enklare åtgärder för trivsel", [ws.id]).terms
    assert ("2099:1", "1 kap. 12 §") not in _keyword("Enklare åtgärder för trivsel", user, ws, top_k=20)


def test_a_compound_is_split_both_ways(own_statute: tuple[User, Workspace], settings: Settings) -> None:
    """The question's compound finds the law's separate words, and the question's separate words find the
    law's compound (LAS 11 §: "uppsägningstid")."""
    user, ws = own_statute
    assert split_compounds("Vem har arbetsmiljöansvar?").parts == ["ansv", "arbetsmiljö"]
    question = "Hur lång tid gäller vid uppsägning?"
    assert "uppsägningstid" in keyword_query(question, [ws.id]).terms
    bridged = _keyword(question, user, ws, top_k=50)
    settings.RETRIEVAL_BRIDGE_COMPOUNDS = False
    assert "uppsägningstid" not in keyword_query(question, [ws.id]).terms
    plain = _keyword(question, user, ws, top_k=50)
    # LAS 11 § ("en minsta uppsägningstid av en månad") says neither "tid" nor "uppsägning" alone.
    assert ("1982:80", "11 §") in bridged
    assert ("1982:80", "11 §") not in plain or plain.index(("1982:80", "11 §")) > bridged.index(("1982:80", "11 §"))


def test_a_question_word_finds_the_statute_compounds_it_is_part_of(own_statute: tuple[User, Workspace],
                                                                   settings: Settings) -> None:
    """The index side of compound splitting, on the query: arbetsmiljölagen's compounds of "arbetsmiljö"."""
    user, ws = own_statute
    compounds = bridges.vocabulary().compounds_of["arbetsmiljö"]
    assert 0 < len(compounds) <= bridges.COMPOUNDS_PER_PART
    assert all(c.startswith("arbetsmiljö") and c != "arbetsmiljö" for c in compounds)
    assert not set(compounds) & set(keyword_query("Vad gäller för arbetsmiljö?", [ws.id]).terms)  # off by default
    settings.RETRIEVAL_BRIDGE_COMPOUND_PARTS = True
    assert set(compounds) <= set(keyword_query("Vad gäller för arbetsmiljö?", [ws.id]).terms)


def test_a_synonym_the_statutes_use_joins_the_question(own_statute: tuple[User, Workspace], settings: Settings) -> None:
    """"spara" is no word of the law's here; "lagra", its synonym, is (5 kap.)."""
    user, ws = own_statute
    question = "Hur länge får vi spara uppgifterna?"
    assert "lagr" in bridges.vocabulary().synonyms["spar"]
    assert "lagr" not in keyword_query(question, [ws.id]).terms  # off by default
    settings.RETRIEVAL_BRIDGE_SYNONYMS = True
    query = keyword_query(question, [ws.id])
    weights = dict(zip(query.terms, query.weights))
    assert 0 < weights["lagr"] < weights["uppgift"] * 2  # at a share of the bridge weight, not as the word itself
    assert ("2099:1", "5 kap. 1 §") in _keyword(question, user, ws)


def test_a_definite_form_brings_its_base_form() -> None:
    vocab = bridges.Vocabulary(version=(), words=frozenset({"avtal", "fartyg"}))
    bridged = bridges.bridge("", {"avtalet": 4.0}, vocab, unknown=frozenset({"fartyget", "paketet"}),
                             bases={"avtalet": "avtal", "fartyget": "fartyg", "paketet": "paket"})
    assert bridged.added == {"avtal": bridges.INFLECTION_WEIGHT, "fartyg": bridges.INFLECTION_WEIGHT}
    # "fartyget" is in no source, but its base form is: the same word, not a missing one. "paket" is no statute word.
    assert bridged.inflected == {"fartyget"}
    # Both forms in the question already: nothing to add.
    both = bridges.bridge("", {"avtalet": 4.0, "avtal": 3.0}, vocab, bases={"avtalet": "avtal"})
    assert both.added == {} and both.inflected == set()


def test_a_word_in_its_definite_form_finds_the_law_writing_its_base_form(own_statute: tuple[User, Workspace],
                                                                          settings: Settings) -> None:
    """The stemmer leaves a neuter noun's definite -et: LAS writes "varsel" in several §§, never "varselet"."""
    user, ws = own_statute
    question = "När ska varselet lämnas?"
    query = keyword_query(question, [ws.id])
    assert "varsel" in query.terms
    assert query.unknown_words == [] and query.unmatched_weight == 0  # the same word: nothing is missing
    options = RetrievalOptions(mode="keyword", use_references=False, top_k=3)
    found = retrieve_context(question, ws, user=user, options=options)
    assert found.chunks and all("varsel" in c.text.lower() for c in found.chunks)
    assert found.unknown_words == [] and found.corrections == {}  # no note: the reader wrote the word right

    settings.RETRIEVAL_BRIDGE_INFLECTIONS = False
    plain = keyword_query(question, [ws.id])
    assert "varsel" not in plain.terms and plain.unknown_words == ["varselet"] and plain.unmatched_weight > 0


def test_a_genitive_no_source_writes_finds_the_law_writing_its_base_form(own_statute: tuple[User, Workspace],
                                                                         settings: Settings) -> None:
    """The stemmer takes one suffix a pass: "veckors" loses its s ("veckor"), "veckor" loses "or" ("veck"). LAS
    writes "veckor", never "veckors"."""
    _, ws = own_statute
    question = "Hur många veckors uppsägningstid gäller?"
    query = keyword_query(question, [ws.id])
    assert "veck" in query.terms and "veckors" not in query.unknown_words  # the same word: not missing

    settings.RETRIEVAL_BRIDGE_INFLECTIONS = False
    plain = keyword_query(question, [ws.id])
    assert "veck" not in plain.terms and "veckors" in plain.unknown_words
    assert query.unmatched_weight < plain.unmatched_weight


def test_a_word_the_sources_write_is_not_stemmed_again(own_statute: tuple[User, Workspace]) -> None:
    # "kostnader" is the lexeme "kostnad", which the sources write; a second pass would cut it to the singular's
    # "kostn", and cutting base forms that only look inflected cost the keyword half (docs/retrieval.md).
    _, ws = own_statute
    terms = keyword_query("Vem betalar arbetstagares kostnader?", [ws.id]).terms
    assert "arbetstagar" in terms and "arbetstag" not in terms


def test_the_base_form_is_stemmed_as_the_stemmer_stems_it(own_statute: tuple[User, Workspace]) -> None:
    # "skydd" loses a d in a long word ("anställningsskyd"), as the law's "anställningsskydd" does in the index;
    # a definite form the law writes too keeps its own lexeme beside the base form's.
    _, ws = own_statute
    assert "anställningsskyd" in keyword_query("Vem omfattas av anställningsskyddet?", [ws.id]).terms
    assert {"skyddsombudet", "skyddsombud"} <= set(keyword_query("Vad gör skyddsombudet?", [ws.id]).terms)


def test_a_verb_and_its_particle_are_paired_with_the_particles_compound_form() -> None:
    assert bridges.particle_verbs("Får vi säga upp henne?") == [("upp", "säga")]
    # "ner" and "tillbaka" head a compound as "ned" and "åter" ("nedsättning", "återbetalning").
    assert bridges.particle_verbs("Får man gå ner i tid?") == [("ned", "gå")]
    assert bridges.particle_verbs("Ska skatten betalas tillbaka?") == [("åter", "betalas")]
    assert bridges.particle_verbs("Får man gå upp till heltid?") == [("upp", "gå")]  # "upp till" is no particle verb


def test_a_particle_verb_adds_the_statute_words_that_write_it_as_one(settings: Settings) -> None:
    index = SpellingIndex(by_initial={"u": ("uppsägning", "uppsägningstid", "uppsäg", "uppdrag")}, by_folded={})
    vocab = bridges.Vocabulary(version=(0, 0), _spelling=index)
    found = bridges.bridge("", {"säg": 3.0}, vocab, particle_stems=["uppsäg"])
    # The most used first, no long compound of it, each at half the bridge weight: which derivation is meant is a guess.
    share = settings.RETRIEVAL_BRIDGE_WEIGHT * bridges.PARTICLE_SHARE
    assert found.added == {"uppsägning": share, "uppsäg": share}
    assert bridges.bridge("", {}, vocab, particle_stems=["uppd"]).added == {}  # too short a stem to say anything


def test_a_particle_verb_finds_the_law_writing_its_noun(own_statute: tuple[User, Workspace],
                                                         settings: Settings) -> None:
    """LAS writes its rules on notice with "uppsägning"; the question asks with the verb "säga upp"."""
    user, ws = own_statute
    question = "När får en arbetsgivare säga upp en arbetstagare?"
    assert "uppsägning" in keyword_query(question, [ws.id]).terms
    found = _keyword(question, user, ws, top_k=3)
    assert found and all(sfs == "1982:80" for sfs, _ in found)

    settings.RETRIEVAL_BRIDGE_PARTICLES = False
    assert "uppsägning" not in keyword_query(question, [ws.id]).terms


def test_an_acronym_in_a_word_a_source_writes_whole_is_not_missing(own_statute: tuple[User, Workspace]) -> None:
    """No statute writes "BAS" in capitals, so its homograph "bas" is not searched; but the regulation-style §
    writes "Bas-P", the whole word the question asks about: the reader is not told no source uses it."""
    user, ws = own_statute
    query = keyword_query("Vem ska utse BAS-P?", [ws.id])
    assert "bas-p" in query.terms and "bas" not in query.terms
    assert query.unknown_words == [] and query.unmatched_weight == 0
    assert _keyword("Vem ska utse BAS-P?", user, ws, top_k=1) == [("2099:1", "7 kap. 1 §")]
    # A hyphenated word no source writes is still named, with the acronym no statute writes in capitals.
    assert keyword_query("Vem ska utse BAS-Q?", [ws.id]).unknown_words == ["BAS-Q"]
