"""The evaluation and benchmark commands run end to end on real statutes (figures are not asserted)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from pytest_django import Settings

from agent.management.commands.eval_retrieval import score, unique_sections
from agent.retrieval.sources import RetrievedChunk
from chunks.models import ContentChunk
from compliance.models import LegalDocument

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"question": "Vad säger 3 kap. 2 a § arbetsmiljölagen?",
     "gold_refs": [{"sfs": "1977:1160", "ref": "3 kap. 2 a §"}]},
    {"question": "Vilka regler gäller för turordning vid uppsägning enligt LAS?",
     "gold_refs": [{"sfs": "1982:80", "ref": "22 §"}]},
    {"question": "Hur många semesterdagar har en arbetstagare rätt till?",
     "gold_refs": [{"sfs": "1977:480", "ref": "4 §"}]},  # semesterlagen is not loaded here
]


def run(name: str, *args: str) -> tuple[dict, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(name, *args, stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


@pytest.fixture
def question_file(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in QUESTIONS) + "\n", encoding="utf-8")
    return path


def test_eval_retrieval_scores_the_loaded_statutes(loaded: list[LegalDocument], question_file: Path) -> None:
    report, err = run("eval_retrieval", "--questions", str(question_file), "--mode", "all", "--json")
    assert report["questions"] == 3
    assert report["questions_with_gold_loaded"] == 2
    assert report["questions_skipped"] == 1
    assert "1977:480" in err
    assert set(report["modes"]) == {"hybrid", "vector", "keyword"}
    for figures in report["modes"].values():
        for key in ("recall@1", "recall@5", "recall@10", "recall@20", "mrr", "ndcg@10"):
            assert 0.0 <= figures[key] <= 1.0
        assert {"p50_ms", "p95_ms"} <= set(figures["latency"])


def test_a_cited_section_is_recalled_first(loaded: list[LegalDocument], question_file: Path, tmp_path: Path) -> None:
    single = tmp_path / "one.jsonl"
    single.write_text(json.dumps(QUESTIONS[0], ensure_ascii=False) + "\n", encoding="utf-8")
    report, _ = run("eval_retrieval", "--questions", str(single), "--json")
    hybrid = report["modes"]["hybrid"]
    assert hybrid["recall@1"] == 1.0
    assert hybrid["mrr"] == 1.0
    # The cited section also reaches the block the model reads, with the block's size beside it.
    assert hybrid["context_recall"] == 1.0
    assert hybrid["context_sources_avg"] >= 1 and hybrid["context_tokens_avg"] > 0


def test_context_recall_counts_only_what_the_block_holds(loaded: list[LegalDocument], tmp_path: Path) -> None:
    # A gold section the retrieval cannot find (no such § in arbetsmiljölagen) is in no block.
    path = tmp_path / "absent.jsonl"
    path.write_text(json.dumps({"question": "Vad säger 3 kap. 2 a § arbetsmiljölagen?",
                                "gold_refs": [{"sfs": "1977:1160", "ref": "99 kap. 1 §"}]}) + "\n", encoding="utf-8")
    report, _ = run("eval_retrieval", "--questions", str(path), "--json")
    assert report["modes"]["hybrid"]["context_recall"] == 0.0
    assert report["modes"]["hybrid"]["no_sources"] == 0  # it has sources, only not the gold one
    skipped, _ = run("eval_retrieval", "--questions", str(path), "--json", "--no-context")
    assert "context_recall" not in skipped["modes"]["hybrid"]


def test_eval_retrieval_counts_questions_left_without_sources(loaded: list[LegalDocument], tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    items = [QUESTIONS[0], {"question": "Hur lagar man en god fisksoppa till fredagsmiddagen?",
                            "gold_refs": [{"sfs": "1977:1160", "ref": "1 kap. 1 §"}]}]
    path.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in items) + "\n", encoding="utf-8")
    report, _ = run("eval_retrieval", "--questions", str(path), "--json", "--no-context")
    assert report["modes"]["hybrid"]["no_sources"] == 1


def test_eval_retrieval_dedupes_split_sections() -> None:
    def chunk(i: int, citation: str) -> RetrievedChunk:
        return RetrievedChunk(chunk_id=i, source_type="LEGAL_DOCUMENT", source_id=1, document_number="1977:1160",
                              document_title="", header="", path=f"{i:05d}", ordinal=i, citation=citation,
                              text="", token_count=1)

    ranked = unique_sections([chunk(1, "1 §"), chunk(2, "1 §"), chunk(3, "2 §")])
    assert ranked == [("1977:1160", "1 §"), ("1977:1160", "2 §")]
    figures = score(ranked, {("1977:1160", "2 §")})
    assert figures["recall@1"] == 0.0 and figures["recall@5"] == 1.0 and figures["mrr"] == 0.5


def test_a_deep_k_reports_how_far_down_the_gold_sits(loaded: list[LegalDocument], question_file: Path) -> None:
    report, _ = run("eval_retrieval", "--questions", str(question_file), "--k", "100", "--mode", "keyword", "--json")
    figures = report["modes"]["keyword"]
    assert "recall@50" in figures and "recall@100" in figures and "recall@200" not in figures
    assert figures["recall@10"] <= figures["recall@20"] <= figures["recall@50"] <= figures["recall@100"]
    shallow, _ = run("eval_retrieval", "--questions", str(question_file), "--mode", "keyword", "--json")
    assert "recall@50" not in shallow["modes"]["keyword"]


def test_bench_context_prints_its_figures(loaded: list[LegalDocument]) -> None:
    report, _ = run("bench_context", "--questions", "3", "--json")
    assert report["questions"] == 3
    for key in ("miss", "hit", "avg_context_tokens", "avg_top20_tokens", "miss_stages_p50_ms", "machine"):
        assert key in report
    assert {"p50_ms", "p95_ms"} <= set(report["miss"])
    assert report["hits_served_from_cache"] == 3
    # Each turn's log is written apart from the step (after the answer), timed on its own, then removed.
    assert report["log_write"]["n"] == 6 and report["retrieval_logs_deleted"] == 6


def test_bench_ingest_prints_its_figures() -> None:
    report, _ = run("bench_ingest", "--sfs", "1977:1160", "--sample", "10", "--quick", "--no-corpus",
                    "--service-sfs", "1998:209", "--json")
    service = report["service_path"]
    assert service["chunks"] == service["embedded"] == 9  # the real path embedded every chunk, once
    assert service["chunk_document_s"] > 0 and service["embed_chunk_batch_s"] > 0
    chunks = ContentChunk.objects.filter(document_number="1998:209")
    assert chunks.count() == 9 and not chunks.filter(embedding__isnull=True).exists()
    assert report["chunking"]["selected"]["chunks"] > 0
    assert report["embedding"]["sample_chunks"] == 10
    assert {c["config"] for c in report["embedding"]["configs"]} == {"naive_doc_order_b32", "length_sorted_b32"}
    assert report["projection_best"]["core_18"]["chunks"] > 0
    assert report["peak_rss_mb"]["self"] > 0


def test_eval_abstain_counts_off_topic_questions_left_without_sources(loaded: list[LegalDocument], tmp_path: Path,
                                                                      settings: Settings) -> None:
    """With the threshold the cited question keeps its gold and the unrelated one gets nothing; without it,
    the unrelated one gets sources too. The report names the gate's settings."""
    settings.RETRIEVAL_MIN_RELEVANCE, settings.RETRIEVAL_MIN_RELEVANCE_ALONE = 0.84, 0.85
    path = tmp_path / "relevance.jsonl"
    items = [{"question": "Vad säger 3 kap. 2 a § arbetsmiljölagen?", "on_topic": True,
              "gold_refs": [{"sfs": "1977:1160", "ref": "3 kap. 2 a §"}]},
             {"question": "Hur lagar man en god fisksoppa till fredagsmiddagen?", "on_topic": False}]
    path.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in items) + "\n", encoding="utf-8")
    report, _ = run("eval_abstain", "--set", str(path), "--json")
    assert (report["min_relevance"], report["min_relevance_alone"]) == (0.84, 0.85)
    figures = report["files"][str(path)]
    assert figures["threshold"]["off_topic_no_sources"] == 1
    assert figures["threshold"]["on_topic_gold_kept"] == 1
    assert figures["no_threshold"]["off_topic_no_sources"] == 0


COMPANY = '{"employee_count": 50, "has_collective_agreement": true}'


def eval_workspace_state() -> dict:
    """What of a company the evaluation workspace holds: its laglista, its decisions and its profile's rule fields."""
    from agent.evaluation.benchmarking import eval_user_and_workspace
    from compliance.models import WorkspaceProfile
    from register.models import LegalRegister, RegisterItem, SuggestionDecision
    from register.suggestions import PROFILE_RULE_FIELDS

    ws = eval_user_and_workspace().workspace
    profile = WorkspaceProfile.objects.filter(workspace=ws).values(*PROFILE_RULE_FIELDS).first() or {}
    return {"registers": LegalRegister.objects.filter(workspace=ws).count(),
            "items": RegisterItem.objects.filter(workspace=ws).count(),
            "decisions": SuggestionDecision.objects.filter(workspace=ws).count(),
            "profile": {name: value for name, value in profile.items() if value not in (None, "")}}


EMPTY = {"registers": 0, "items": 0, "decisions": 0, "profile": {}}


@pytest.mark.parametrize("laglista", [False, True])
def test_eval_retrieval_measures_as_a_company_and_leaves_the_workspace_as_it_was(
        loaded: list[LegalDocument], question_file: Path, laglista: bool) -> None:
    assert eval_workspace_state() == EMPTY
    args = ["--company", COMPANY, *(["--laglista"] if laglista else [])]
    report, _ = run("eval_retrieval", "--questions", str(question_file), "--mode", "keyword", "--no-context", "--json",
                    *args)
    company = report["company"]
    assert company["profile"] == {"employee_count": 50, "has_collective_agreement": True}
    # An employer of 50 is suggested arbetsmiljölagen and LAS, the two statutes loaded here (the rest are skipped).
    assert {"1977:1160", "1982:80"} <= set(company["suggested"])
    assert company["on_laglista"] == (company["suggested"] if laglista else [])
    assert eval_workspace_state() == EMPTY


def test_eval_abstain_measures_as_a_company(loaded: list[LegalDocument], tmp_path: Path) -> None:
    path = tmp_path / "relevance.jsonl"
    path.write_text(json.dumps({"question": "Vad säger 3 kap. 2 a § arbetsmiljölagen?", "on_topic": True,
                                "gold_refs": [{"sfs": "1977:1160", "ref": "3 kap. 2 a §"}]}, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    report, _ = run("eval_abstain", "--set", str(path), "--json", "--company", COMPANY, "--laglista")
    assert "1977:1160" in report["company"]["on_laglista"]
    assert report["files"][str(path)]["threshold"]["on_topic_gold_kept"] == 1
    assert eval_workspace_state() == EMPTY


@pytest.mark.parametrize(("args", "message"), [
    (["--company", "anställda: 50"], "not JSON"),
    (["--company", "[50]"], "JSON object"),
    (["--laglista"], "needs --company"),
    (["--company", '{"employee_count": -3}'], "anställda"),
])
def test_a_company_the_profile_form_would_refuse_is_refused(loaded: list[LegalDocument], question_file: Path,
                                                             args: list[str], message: str) -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        run("eval_retrieval", "--questions", str(question_file), "--mode", "keyword", "--no-context", "--json", *args)
    assert eval_workspace_state() == EMPTY


def test_a_workspace_someone_set_up_is_not_measured_over(loaded: list[LegalDocument], question_file: Path) -> None:
    """A profile set by hand on the evaluation workspace is refused, not overwritten and then cleared."""
    from django.core.management.base import CommandError

    from agent.evaluation.benchmarking import eval_user_and_workspace
    from compliance.services import profile_update

    account = eval_user_and_workspace()
    profile_update(workspace=account.workspace, user=account.user, values={"industry": "restaurang"})
    with pytest.raises(CommandError, match="already has a company profile"):
        run("eval_retrieval", "--questions", str(question_file), "--json", "--company", COMPANY)
    assert eval_workspace_state()["profile"] == {"industry": "restaurang"}
