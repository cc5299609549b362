"""Isolation of the laglista's pages as a property: whatever register objects two workspaces hold, a member of
one reaching for the other's item, kravpunkt, evidence, review, entry or action, by any page and method, gets
a 404 and changes nothing; so does any id that does not exist. And an outsider gets 404 on every page."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from compliance.models import LegalDocument, Membership, ProcessingStatus, Workspace
from register import services
from register.models import Action, Evidence, RegisterItem, Requirement, Review, ReviewEntry
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

# (route name, method, the kinds of ids in its path after the slug)
ROUTES = [
    ("register_item", "get", ("item",)),
    ("register_item_history", "get", ("item",)),
    ("register_item_edit", "post", ("item",)),
    ("register_item_status", "post", ("item",)),
    ("register_item_remove", "get", ("item",)),
    ("register_item_remove", "post", ("item",)),
    ("register_requirement_add", "post", ("item",)),
    ("register_action_create", "post", ("item",)),
    ("register_requirement_edit", "get", ("requirement",)),
    ("register_requirement_edit", "post", ("requirement",)),
    ("register_requirement_delete", "post", ("requirement",)),
    ("register_evidence_add", "post", ("requirement",)),
    ("register_evidence_remove", "post", ("evidence",)),
    ("register_review", "get", ("review",)),
    ("register_review_close", "post", ("review",)),
    ("register_review_rate", "post", ("review", "entry")),
    ("register_action_update", "post", ("action",)),
]
PAGES = ["register_overview", "register_item_add", "register_reviews", "register_review_start", "register_actions"]
POST_DATA = {"status": "compliant", "title": "x", "krav-title": "x", "atgarder-title": "x", "markera": "done"}


def build(owner: User, other_owner: User, n_items: int, n_requirements: int) -> dict[str, Workspace]:
    docs = [LegalDocument.objects.get_or_create(sfs_number=f"2000:{i + 1}", defaults={
        "title": f"Lag {i + 1}", "status": ProcessingStatus.DONE})[0] for i in range(3)]
    made = {}
    for key, user in (("mine", owner), ("theirs", other_owner)):
        ws = Workspace.objects.create(name=f"WS {key}", slug=f"ws-{key}")
        Membership.objects.create(user=user, workspace=ws, role="owner")
        register = services.register_default(workspace=ws, user=user)
        for d in docs[:n_items]:
            item = services.register_item_add(register=register, user=user, legal_document=d).item
            for j in range(n_requirements):
                r = services.requirement_create(item=item, user=user, data={"title": f"Krav {j}"})
                services.evidence_add(requirement=r, user=user, kind="external", reference=f"Pärm {j}")
            services.action_create(workspace=ws, user=user, title="Åtgärd", item=item)
        services.review_start(register=register, user=user, title="Kontroll")
        made[key] = ws
    return made


def ids_of(ws: Workspace) -> dict[str, list[int]]:
    return {
        "item": list(RegisterItem.objects.filter(workspace=ws).values_list("pk", flat=True)),
        "requirement": list(Requirement.objects.filter(workspace=ws).values_list("pk", flat=True)),
        "evidence": list(Evidence.objects.filter(workspace=ws).values_list("pk", flat=True)),
        "review": list(Review.objects.filter(workspace=ws).values_list("pk", flat=True)),
        "entry": list(ReviewEntry.objects.filter(review__workspace=ws).values_list("pk", flat=True)),
        "action": list(Action.objects.filter(workspace=ws).values_list("pk", flat=True)),
    }


def state(ws: Workspace) -> tuple:
    return (list(RegisterItem.objects.filter(workspace=ws).order_by("pk").values_list("pk", "status")),
            list(Requirement.objects.filter(workspace=ws).order_by("pk").values_list("pk", "title")),
            Evidence.objects.filter(workspace=ws).count(),
            list(Review.objects.filter(workspace=ws).values_list("state", flat=True)),
            list(Action.objects.filter(workspace=ws).order_by("pk").values_list("pk", "state")),
            ReviewEntry.objects.filter(review__workspace=ws, assessed_at__isnull=False).count())


@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(n_items=st.integers(1, 3), n_requirements=st.integers(0, 2),
       route=st.sampled_from(ROUTES), pick=st.integers(0, 50), missing=st.booleans())
def test_another_workspaces_objects_are_404_on_every_page(n_items: int, n_requirements: int,
                                                          route: tuple[str, str, tuple[str, ...]], pick: int,
                                                          missing: bool) -> None:
    with transaction.atomic():
        alice, bob = make_user("alice-iso"), make_user("bob-iso")
        made = build(alice, bob, n_items, n_requirements)
        theirs = ids_of(made["theirs"])
        name, method, kinds = route
        args = []
        for kind in kinds:
            pool = theirs[kind]
            if missing or not pool:
                args.append(10**9 + pick)  # an id nobody has
            else:
                args.append(pool[pick % len(pool)])
        client = Client()
        client.force_login(alice)
        before = (state(made["mine"]), state(made["theirs"]))
        url = reverse(name, args=[made["mine"].slug, *args])
        response = client.post(url, POST_DATA) if method == "post" else client.get(url)
        assert response.status_code == 404, (name, method, url, response.status_code)
        assert (state(made["mine"]), state(made["theirs"])) == before
        transaction.set_rollback(True)


def test_an_outsider_gets_404_on_every_page() -> None:
    alice, charlie = make_user("alice-out"), make_user("charlie-out")
    made = build(alice, charlie, 1, 1)
    mine = ids_of(made["mine"])
    client = Client()
    client.force_login(charlie)
    before = state(made["mine"])
    for name in PAGES:
        assert client.get(reverse(name, args=[made["mine"].slug])).status_code == 404, name
    for name, method, kinds in ROUTES:
        url = reverse(name, args=[made["mine"].slug, *[mine[k][0] for k in kinds]])
        response = client.post(url, POST_DATA) if method == "post" else client.get(url)
        assert response.status_code == 404, (name, method)
    assert state(made["mine"]) == before
