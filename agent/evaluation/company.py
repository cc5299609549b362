"""A company for the evaluation workspace, for one run of an evaluation command.

The dev sets' questions come from no company, so the evaluation workspace has neither a company profile nor a
laglista, and the priors that read them (the register prior and the profile prior, docs/retrieval.md "The laglista
weighs the sources" and "The company profile weighs the sources") do nothing there. `--company` gives it the
profile a new customer fills in, and `--laglista` the laglista it makes by accepting every suggestion, through the
product's own services. Both are removed when the run ends, whatever way it ends, so the next run measures the
workspace as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.core.management.base import CommandParser

from compliance.errors import ApplicationError
from compliance.models import WorkspaceProfile
from compliance.services import profile_clear, profile_update
from register.models import LegalRegister, RegisterItem, SuggestionDecision
from register.services import suggestion_accept
from register.suggestions import PROFILE_RULE_FIELDS, suggestion_list

from .benchmarking import BenchAccount


class CompanySetupError(ApplicationError):
    """The company cannot be set up: a profile value the form would refuse too, or a workspace already in use."""


@dataclass(frozen=True)
class Company:
    profile: dict[str, object]  # WorkspaceProfile values, as the profile form and API take them
    laglista: bool  # accept every suggestion from the profile, as a new customer would


@dataclass(frozen=True)
class CompanyReport:
    """What the run measured with: the profile, the documents it suggested, and those put on the laglista."""

    profile: dict[str, object]
    suggested: list[str]
    on_laglista: list[str]


def add_company_arguments(parser: CommandParser) -> None:
    """`--company` and `--laglista`, for the evaluation commands that measure as a company."""
    parser.add_argument("--company", default="",
                        help="measure as a company: a JSON object of company profile fields "
                             "('{\"employee_count\": 50, \"industry\": \"tillverkning\"}'), given to the "
                             "evaluation workspace for this run and removed after it (agent.evaluation.company)")
    parser.add_argument("--laglista", action="store_true",
                        help="with --company: accept every suggestion from the profile onto a laglista first")


def company_from_options(opts: dict[str, Any]) -> Company | None:
    """The company a command's `--company` and `--laglista` ask for (None: the workspace as it is)."""
    if not opts["company"]:
        if opts["laglista"]:
            raise CompanySetupError("company_json", "--laglista needs --company: the laglista is made from the "
                                                    "profile's suggestions")
        return None
    return company_parse(opts["company"], laglista=opts["laglista"])


def company_parse(profile: str, *, laglista: bool) -> Company:
    """`profile`: a JSON object of profile fields ('{"employee_count": 50, "industry": "tillverkning"}')."""
    try:
        values = json.loads(profile)
    except json.JSONDecodeError as exc:
        raise CompanySetupError("company_json", f"--company is not JSON: {exc}") from exc
    if not isinstance(values, dict) or not values:
        raise CompanySetupError("company_json", "--company must be a JSON object of profile fields")
    return Company(profile=values, laglista=laglista)


def _in_use(account: BenchAccount) -> str:
    ws = account.workspace
    if RegisterItem.objects.filter(workspace=ws).exists() or LegalRegister.objects.filter(workspace=ws).exists():
        return "a laglista"
    if SuggestionDecision.objects.filter(workspace=ws).exists():
        return "decisions on suggestions"
    profile = WorkspaceProfile.objects.filter(workspace=ws).first()
    if profile is not None and any(getattr(profile, name) not in (None, "") for name in PROFILE_RULE_FIELDS):
        return "a company profile"
    return ""


@contextmanager
def company_for(account: BenchAccount, company: Company | None) -> Iterator[CompanyReport | None]:
    """The evaluation workspace as `company` for the block's duration (None: as it is)."""
    if company is None:
        yield None
        return
    in_use = _in_use(account)
    if in_use:
        # Removing it afterwards would remove what someone set up by hand: refuse rather than guess.
        raise CompanySetupError("workspace_in_use", f"the evaluation workspace already has {in_use}; "
                                                    "remove it before measuring with --company")
    user, ws = account.user, account.workspace
    try:
        profile_update(workspace=ws, user=user, values=company.profile)
        suggested = [s.number for s in suggestion_list(ws) if s.from_profile]
        if company.laglista:
            for number in suggested:
                suggestion_accept(workspace=ws, user=user, number=number)
        yield CompanyReport(profile=company.profile, suggested=suggested,
                            on_laglista=suggested if company.laglista else [])
    finally:
        LegalRegister.objects.filter(workspace=ws).delete()
        SuggestionDecision.objects.filter(workspace=ws).delete()
        profile_clear(workspace=ws)
