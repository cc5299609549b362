"""Property-based API tests generated from the OpenAPI schema (schemathesis).

Every operation gets a bounded number of generated requests (valid and invalid),
sent as alice with an API token into her real workspace and real object ids, and
every response must be a non-5xx that matches the documented schema for its
status code (the one error shape included).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from agent.models import Conversation, Message
from chunks.models import ContentChunk, SourceType
from compliance.models import Assessment, LegalDocument, Membership, UserFile, Workspace
from compliance.services import api_token_create
from compliance.wsgi import application
from glossary import services as glossary_services
from law.models import StatuteChange, StatuteVersion
from register import services as register_services
from register.models import ChangeNotice, LegalRegister, RegisterItem
from tests.helpers import make_user

MAX_EXAMPLES = 15
# Search, context and answers embed every generated query and assemble a context:
# far slower per request, so fewer examples keep the whole run near a minute.
MAX_EXAMPLES_AGENT = 5
AGENT_PATHS = r"/(search|context|messages)$"

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", application)
crud_schema = schema.exclude(path_regex=AGENT_PATHS)
agent_schema = schema.include(path_regex=AGENT_PATHS)
HEALTH_CHECKS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much,
                 HealthCheck.data_too_large]


@pytest.fixture
def wsgi_in_test_transaction() -> Iterator[None]:
    """Requests go through the real WSGI handler, which closes the DB connection when a
    request finishes; that would end the test's transaction. Django's test client
    disconnects the same handlers."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def world(db: None, wsgi_in_test_transaction: None) -> dict[str, Any]:
    alice, bob = make_user("alice"), make_user("bob")
    workspace = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=workspace, role=Membership.Role.OWNER)
    bob_membership = Membership.objects.create(user=bob, workspace=workspace, role=Membership.Role.EDITOR)
    statute = LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)",
                                           full_text="1 § Text.")
    ContentChunk.objects.create(source_type=SourceType.LEGAL_DOCUMENT, legal_document=statute, header="AML > 1 §",
                                path="00000.00000", ordinal=0, citation="1 §", content_hash="x",
                                text="Lagens ändamål är att förebygga ohälsa och olycksfall i arbetet.")
    user_file = UserFile.objects.create(workspace=workspace, title="Policy", original_name="policy.txt",
                                        file="workspaces/x/policy.txt", size=10)
    assessment = Assessment.objects.create(workspace=workspace, title="Riskbedömning", legal_document=statute)
    conversation = Conversation.objects.create(workspace=workspace, user=alice, title="Fråga")
    message = Message.objects.create(conversation=conversation, role="assistant", content="Svar")
    # A change notice of the statute on alice's laglista, so the notice routes reach a real one.
    old = StatuteVersion.objects.create(document=statute, full_text="1 § Text.", content_hash="a", origin="CORPUS")
    new = StatuteVersion.objects.create(document=statute, full_text="1 § Ny text.", content_hash="b", origin="FILE",
                                        is_current=True, amended_through="SFS 2025:1")
    StatuteChange.objects.create(document=statute, from_version=old, to_version=new, kind="AMENDED", citation="1 §",
                                 section="1", old_text="1 § Text.", new_text="1 § Ny text.")
    register = LegalRegister.objects.create(workspace=workspace, name="Laglista")
    item = RegisterItem.objects.create(register=register, workspace=workspace, legal_document=statute)
    notice = ChangeNotice.objects.create(workspace=workspace, item=item, legal_document=statute, version=new,
                                         kind="amended", change_count=1)
    # The register's other rows, so its routes are exercised past the 404 too.
    group = register_services.register_group_get_or_create(register=register, user=alice, name="Arbetsmiljö")
    requirement = register_services.requirement_create(item=item, user=alice, data={"title": "Krav"})
    evidence = register_services.evidence_add(requirement=requirement, user=alice, kind="file", user_file=user_file)
    register_services.register_item_update(item=item, user=alice, data={"group": group})
    review = register_services.review_start(register=register, user=alice, title="Kontroll", groups=[group])
    action = register_services.action_create(workspace=workspace, user=alice, title="Åtgärd", item=item)
    term = glossary_services.term_create(workspace=workspace, user=alice, word="hyrpersonal",
                                         law_words="inhyrd arbetskraft")
    key = api_token_create(user=alice, name="schemathesis").key
    # A second token to revoke, so DELETE tokens/{id} does not lock the test out.
    spare = api_token_create(user=alice, name="spare").token
    return {
        "key": key,
        "path": {"slug": "alices-ab", "sfs": "1977:1160", "file_id": user_file.pk, "assessment_id": assessment.pk,
                 "conversation_id": conversation.pk, "message_id": message.pk, "member_id": bob_membership.pk,
                 "token_id": spare.pk, "notice_id": notice.pk, "register_id": register.pk, "item_id": item.pk,
                 "requirement_id": requirement.pk, "evidence_id": evidence.pk, "review_id": review.pk,
                 "entry_id": review.entries.get().pk, "action_id": action.pk, "term_id": term.pk},
    }


def check(case: schemathesis.Case, world: dict[str, Any]) -> None:
    cache.clear()  # throttling counters: generated traffic must not be rate limited
    if case.path_parameters:
        # Aim at alice's real objects; random ids would only ever exercise the 404 path.
        for name in case.path_parameters:
            if name in world["path"]:
                case.path_parameters[name] = world["path"][name]
    case.call_and_validate(headers={"Authorization": f"Bearer {world['key']}"},
                           checks=[not_a_server_error, response_schema_conformance])


@crud_schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=HEALTH_CHECKS)
def test_api_conforms_to_its_schema(case: schemathesis.Case, world: dict[str, Any]) -> None:
    check(case, world)


@agent_schema.parametrize()
@settings(max_examples=MAX_EXAMPLES_AGENT, deadline=None, suppress_health_check=HEALTH_CHECKS)
def test_agent_api_conforms_to_its_schema(case: schemathesis.Case, world: dict[str, Any]) -> None:
    check(case, world)
