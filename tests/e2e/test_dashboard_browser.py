"""An owner in a real browser: the dashboard's charts render (with hover values), the period switch
works, and a question that found nothing links to its conversation."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from pytest_django.live_server_helper import LiveServer

from agent.models import Conversation, Message, RetrievalLog
from compliance.models import Membership, Workspace
from tests.helpers import PASSWORD, make_user

if TYPE_CHECKING:  # for annotations only: Playwright is imported when a browser test starts
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MISSING = "Vilka regler gäller för drönare över kontoret?"


@pytest.fixture
def history() -> tuple[User, Conversation]:
    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    conv = Conversation.objects.create(workspace=ws, user=alice, title="Drönare")
    now = timezone.now()
    turns = [  # days ago, intent, mode, zero match, retrieval ms, question
        (0, "factual", "extractive", False, 20.0, "Vad gäller för skyddsombud?"),
        (0, "factual", "model", True, 30.0, MISSING),
        (0, "greeting", "direct", False, None, "Hej"),
        (3, "task", "model", False, 40.0, "Sammanfatta reglerna om semester"),
        (20, "factual", "extractive", False, 25.0, "Hur lång är uppsägningstiden?"),
        (60, "factual", "extractive", False, 50.0, "En gammal fråga"),
    ]
    for days_ago, intent, mode, zero, retrieval_ms, question in turns:
        Message.objects.create(conversation=conv, role="user", content=question)
        answer = Message.objects.create(conversation=conv, role="assistant", content=f"Svar på: {question}",
                                        answer_mode=mode)
        log = RetrievalLog.objects.create(
            workspace=ws, user=alice, message=answer, answer_mode=mode, query=question, intent=intent,
            skipped=intent == "greeting", zero_match=zero, retrieval_ms=retrieval_ms, total_ms=(retrieval_ms or 0) + 5,
            chunks_considered=0 if zero else 6, chunks_included=0 if zero else 4, tokens_used=0 if zero else 900)
        RetrievalLog.objects.filter(pk=log.pk).update(created_at=now - timedelta(days=days_ago))
    return alice, conv


def test_charts_period_switch_and_found_nothing_link(live_server: LiveServer, browser: Browser, artifacts: Path,
                                                     history: tuple[User, Conversation]) -> None:
    _, conv = history
    page = browser.new_page(viewport={"width": 1280, "height": 1000}, locale="sv-SE")
    page.set_default_timeout(30_000)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # Every script and stylesheet loads (the browser's own favicon request is the app's 404 page, not an error).
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
    page.goto(f"{live_server.url}/logga-in/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/ws/alices-ab/**")

    page.click("nav.main >> text=Översikt")
    page.wait_for_url("**/ws/alices-ab/oversikt/")
    page.locator("[data-dashboard-charts][data-charts-ready=true]").wait_for()
    assert page.evaluate("() => Object.keys(Chart.instances).length") == 5
    # The intents chart carries today's figures: two factual questions and a greeting.
    today = page.evaluate("""() => {
        const chart = Chart.getChart(document.querySelector('canvas[data-chart-kind=intents]'));
        const last = chart.data.labels.length - 1;
        return {days: chart.data.labels.length,
                byLabel: Object.fromEntries(chart.data.datasets.map(d => [d.label, d.data[last]]))};
    }""")
    assert today == {"days": 30, "byLabel": {"Hälsning": 1, "Om assistenten": 0, "Faktafråga": 2, "Uppgift": 0}}
    # Hovering today's bar shows its values in a tooltip.
    canvas = page.locator("canvas[data-chart-kind=intents]")
    point = page.evaluate("""() => {
        const chart = Chart.getChart(document.querySelector('canvas[data-chart-kind=intents]'));
        const bar = chart.getDatasetMeta(2).data[chart.data.labels.length - 1];
        return {x: bar.x, y: bar.y + 2};
    }""")
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
    page.wait_for_function("""() => Chart.getChart(document.querySelector('canvas[data-chart-kind=intents]'))
                                        .tooltip.getActiveElements().length > 0""")
    assert page.locator("[data-figure=questions]").inner_text() == "5"
    assert page.locator("table[data-daily-table] tbody tr").count() == 30
    page.screenshot(path=str(artifacts / "dashboard.png"), full_page=True)

    page.click(".period-switch >> text=90 dagar")
    page.wait_for_url("**/oversikt/?dagar=90")
    page.locator("[data-dashboard-charts][data-charts-ready=true]").wait_for()
    assert page.locator("[data-figure=questions]").inner_text() == "6"
    assert page.evaluate("() => Chart.getChart(document.querySelector('canvas[data-chart-kind=latency]'))"
                         ".data.labels.length") == 90
    page.click(".period-switch >> text=7 dagar")
    page.wait_for_url("**/oversikt/?dagar=7")
    assert page.locator("[data-figure=questions]").inner_text() == "4"
    page.screenshot(path=str(artifacts / "dashboard-7d.png"), full_page=True)

    item = page.locator("[data-found-nothing] li", has_text=MISSING)
    assert item.count() == 1
    with page.expect_navigation():
        item.locator("a").click()
    assert page.url.endswith(f"/ws/alices-ab/oversikt/samtal/{conv.pk}/")
    assert MISSING in page.locator(".transcript").inner_text()
    page.screenshot(path=str(artifacts / "dashboard-conversation.png"), full_page=True)
    assert errors == []
    page.close()
