"""The API of the assistant's memory: the workspace profile (members read it, owners and editors
change it), the caller's own preferences (nobody else's are reachable), and deciding a proposal
the chat made. Validation is the services' (Swedish messages, `details` naming the field)."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from agent.selectors import conversation_get, message_get
from compliance import selectors, services
from compliance.api.views import BaseApi, WorkspaceMixin, validated
from compliance.models import FactOrigin, PersonalPreference, Workspace, WorkspaceProfile

from . import profile as memory
from . import serializers as s


def _origins(instance: WorkspaceProfile | PersonalPreference) -> dict:
    return {field: {"origin": o.get("origin", ""), "conversation_id": o.get("conversation_id"), "at": o.get("at")}
            for field, o in (instance.origins or {}).items()}


def profile_data(workspace: Workspace) -> dict:
    profile = selectors.workspace_profile_get(workspace)
    data = s.ProfileFieldsSerializer(profile).data
    facts = list(selectors.profile_fact_list(workspace)) if profile.pk else []
    return {**data, "origins": _origins(profile), "facts": s.ProfileFactSerializer(facts, many=True).data,
            "revision": profile.revision}


def preference_data(workspace: Workspace, user: AbstractBaseUser) -> dict:
    preference = selectors.preference_get(workspace, user)
    return {**s.PreferenceFieldsSerializer(preference).data, "origins": _origins(preference),
            "revision": preference.revision}


class ProfileApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=["memory"], summary="Arbetsytans företagsprofil", responses=s.ProfileSerializer)
    def get(self, request: Request, slug: str) -> Response:
        return Response(profile_data(self.workspace))

    @extend_schema(tags=["memory"], summary="Ändra företagsprofilen (ägare, redaktörer)",
                   request=s.ProfileFieldsSerializer, responses=s.ProfileSerializer,
                   description="Bara de fält som skickas ändras; `null` eller \"\" tar bort ett värde. "
                               "Ogiltiga värden ger 400 och inget sparas.")
    def patch(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.ProfileFieldsSerializer, request.data)
        services.profile_update(workspace=self.workspace, user=request.user, values=dict(data),
                                origin=FactOrigin.API)
        return Response(profile_data(self.workspace))

    @extend_schema(tags=["memory"], summary="Rensa hela företagsprofilen (ägare, redaktörer)",
                   responses={204: None})
    def delete(self, request: Request, slug: str) -> Response:
        self.require_edit()
        services.profile_clear(workspace=self.workspace)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProfileFactListApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=["memory"], summary="Lägg till en uppgift i företagsprofilen (ägare, redaktörer)",
                   request=s.ProfileFactSerializer, responses={201: s.ProfileFactSerializer})
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.ProfileFactSerializer, request.data)
        fact = services.profile_fact_add(workspace=self.workspace, user=request.user, text=data["text"],
                                         origin=FactOrigin.API)
        return Response(s.ProfileFactSerializer(fact).data, status=status.HTTP_201_CREATED)


class ProfileFactDetailApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["memory"], summary="Ta bort en uppgift ur företagsprofilen (ägare, redaktörer)",
                   responses={204: None})
    def delete(self, request: Request, slug: str, fact_id: int) -> Response:
        fact = selectors.profile_fact_get(self.workspace, fact_id)
        self.require_edit()
        services.profile_fact_delete(fact)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PreferenceApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=["memory"], summary="Mina personliga inställningar i arbetsytan",
                   responses=s.PreferenceSerializer)
    def get(self, request: Request, slug: str) -> Response:
        return Response(preference_data(self.workspace, request.user))

    @extend_schema(tags=["memory"], summary="Ändra mina inställningar", request=s.PreferenceFieldsSerializer,
                   responses=s.PreferenceSerializer)
    def patch(self, request: Request, slug: str) -> Response:
        data = validated(s.PreferenceFieldsSerializer, request.data)
        services.preference_update(workspace=self.workspace, user=request.user, values=dict(data),
                                   origin=FactOrigin.API)
        return Response(preference_data(self.workspace, request.user))

    @extend_schema(tags=["memory"], summary="Rensa mina inställningar", responses={204: None})
    def delete(self, request: Request, slug: str) -> Response:
        services.preference_clear(workspace=self.workspace, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProposalApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=["conversations"], summary="Spara eller avböj ett förslag att komma ihåg en uppgift",
                   request=s.ProposalDecisionSerializer, responses=s.ProposalSerializer,
                   description="`index` är förslagets plats i svarets `proposals`. Ett redan besvarat förslag "
                               "ger 409.")
    def post(self, request: Request, slug: str, conversation_id: int, message_id: int, index: int) -> Response:
        conversation = conversation_get(self.workspace, request.user, conversation_id)
        message = message_get(conversation, message_id)
        decision = validated(s.ProposalDecisionSerializer, request.data)["decision"]
        proposal = memory.proposal_decide(message=message, index=index, user=request.user, save=decision == "save")
        return Response(s.ProposalSerializer(proposal).data)
