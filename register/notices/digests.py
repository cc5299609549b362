"""E-mail digests of change notices: per member and workspace, daily or weekly (NoticeSubscription), through
Django's e-mail backend, run by celery beat every hour.

Exactly once per member, workspace and period: the `DigestSent` row (unique per user, workspace and period)
is inserted in the transaction that sends, before sending. A second worker's insert waits for the first's
commit and then finds the row; a send that fails rolls the row back, so the next run tries again. (A worker
killed between a successful send and its commit would send it again: at least once, never lost.)

A digest lists the notices that arrived since the member's last digest and reminds of the older ones still
unanswered; with nothing to say, nothing is sent. A digest that is sent also names what enters into force in the
laglista's documents within the next `COMING_DAYS` days (`selectors.coming_into_force`), for a member who hears of
changes. It reads only the member's workspace: a digest never lists
another workspace's items.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from compliance.clock import STOCKHOLM
from compliance.models import Membership

from ..models import ChangeNotice, DigestSent, NoticeSubscription
from ..selectors import without_text
from .selectors import ComingChange, coming_into_force, notice_tier

log = logging.getLogger(__name__)

# A workspace is looked at when it has an unanswered notice or one this recent (a weekly digest's span).
RECENT = timedelta(days=8)
# How far ahead a digest looks for changes entering into force.
COMING_DAYS = 30


def digest_period(frequency: str, day: date) -> str:
    """The period a digest speaks for: the Stockholm day, or its ISO week."""
    if frequency == NoticeSubscription.Frequency.DAILY:
        return day.isoformat()
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


@dataclass(frozen=True)
class Digest:
    membership: Membership
    period: str
    new: list[ChangeNotice]          # arrived since the last digest
    reminders: list[ChangeNotice]    # older and still unanswered
    # Entering into force in the laglista's documents within COMING_DAYS of the digest's day.
    coming: list[ComingChange] = field(default_factory=list)

    @property
    def notices(self) -> list[ChangeNotice]:
        return [*self.new, *self.reminders]


def _kinds(subscription: NoticeSubscription) -> list[str]:
    kinds = []
    if subscription.changes:
        kinds += [ChangeNotice.Kind.AMENDED, ChangeNotice.Kind.REPEALED]
    if subscription.new_statutes:
        kinds.append(ChangeNotice.Kind.NEW)
    return kinds


def digest_build(membership: Membership, subscription: NoticeSubscription, *, day: date,
                 coming_soon: dict[int, list[ComingChange]] | None = None) -> Digest | None:
    """What the member's digest for this period would say, or None (off, already sent, nothing to say).
    `coming_soon` keeps each workspace's changes entering into force soon across one run's members: they are the
    workspace's, the same for every member, and reading them costs more than the rest of a digest."""
    kinds = _kinds(subscription)
    if subscription.frequency == NoticeSubscription.Frequency.OFF or not kinds:
        return None
    period = digest_period(subscription.frequency, day)
    sent = DigestSent.objects.filter(user_id=membership.user_id, workspace_id=membership.workspace_id)
    if sent.filter(period=period).exists():
        return None
    last = sent.order_by("-sent_at", "-pk").first()
    notices = (ChangeNotice.objects.filter(workspace_id=membership.workspace_id, kind__in=kinds)
               .select_related("legal_document", "version", "repeal", "item")
               .defer(*without_text("legal_document", versions=("version",)))
               .order_by(notice_tier(), "created_at", "pk"))
    if last is None:
        new, reminders = list(notices.filter(answered_at__isnull=True)), []
    else:
        new = list(notices.filter(created_at__gt=last.sent_at))
        reminders = list(notices.filter(created_at__lte=last.sent_at, answered_at__isnull=True))
    if not new and not reminders:
        return None
    coming = []
    if subscription.changes:
        coming_soon = {} if coming_soon is None else coming_soon
        if membership.workspace_id not in coming_soon:
            coming_soon[membership.workspace_id] = [
                change for change in coming_into_force(membership.workspace, today=day)
                if change.in_force <= day + timedelta(days=COMING_DAYS)]
        coming = coming_soon[membership.workspace_id]
    return Digest(membership=membership, period=period, new=new, reminders=reminders, coming=coming)


@dataclass(frozen=True)
class ComingLine:
    """A coming change as a digest writes it: with its absolute link (the notice, else the statute's changes)."""

    change: ComingChange
    url: str


def _link(name: str, *args: str | int) -> str:
    return settings.SITE_URL + reverse(name, args=args)


def digest_message(digest: Digest) -> EmailMultiAlternatives:
    workspace, user = digest.membership.workspace, digest.membership.user
    unanswered = sum(1 for notice in digest.notices if not notice.is_answered)
    context = {
        "workspace": workspace, "user": user, "digest": digest, "unanswered": unanswered,
        "site_name": settings.SITE_NAME, "coming_days": COMING_DAYS,
        "list_url": _link("notice_list", workspace.slug) + "?status=obesvarade",
        "settings_url": _link("workspace_settings", workspace.slug) + "#lagbevakning",
    }
    for notice in digest.notices:
        notice.url = _link("notice_detail", workspace.slug, notice.pk)
    context["coming"] = [ComingLine(change, settings.SITE_URL + change.path(workspace.slug))
                         for change in digest.coming]
    subject = (f"{settings.SITE_NAME}: {len(digest.new)} nya lagändringar i {workspace.name}" if digest.new
               else f"{settings.SITE_NAME}: {unanswered} lagändringar väntar på bedömning i {workspace.name}")
    message = EmailMultiAlternatives(subject=subject, body=render_to_string("register/notices/digest.txt", context),
                                     to=[user.email])
    message.attach_alternative(render_to_string("register/notices/digest.html", context), "text/html")
    return message


@dataclass(frozen=True)
class DigestRunResult:
    sent: int
    failed: int


def digests_send(*, now: datetime | None = None) -> DigestRunResult:
    """Send every digest that is due now. Before NOTICE_DIGEST_HOUR (Stockholm) nothing is due yet."""
    now = now or timezone.now()
    local = timezone.localtime(now, STOCKHOLM)
    if local.hour < settings.NOTICE_DIGEST_HOUR:
        return DigestRunResult(0, 0)
    workspace_ids = set(ChangeNotice.objects.filter(Q(answered_at__isnull=True) | Q(created_at__gte=now - RECENT))
                        .values_list("workspace_id", flat=True).distinct())
    memberships = (Membership.objects.filter(workspace_id__in=workspace_ids).exclude(user__email="")
                   .filter(user__is_active=True).select_related("user", "workspace").order_by("workspace_id", "pk"))
    subscriptions = {(s.user_id, s.workspace_id): s for s in
                     NoticeSubscription.objects.filter(workspace_id__in=workspace_ids)}
    sent = failed = 0
    coming_soon: dict[int, list[ComingChange]] = {}
    for membership in memberships:
        subscription = (subscriptions.get((membership.user_id, membership.workspace_id))
                        or NoticeSubscription(user=membership.user, workspace=membership.workspace))
        digest = digest_build(membership, subscription, day=local.date(), coming_soon=coming_soon)
        if digest is None:
            continue
        try:
            with transaction.atomic():
                try:
                    with transaction.atomic():
                        DigestSent.objects.create(user_id=membership.user_id, workspace_id=membership.workspace_id,
                                                  period=digest.period, sent_at=now,
                                                  notice_ids=[notice.pk for notice in digest.notices])
                except IntegrityError:
                    continue  # another worker has sent (or is sending) this one
                digest_message(digest).send()
        except Exception:  # the row went back with the transaction: the next run retries this digest
            log.exception("digest to user %s for workspace %s failed", membership.user_id, membership.workspace_id)
            failed += 1
            continue
        sent += 1
    return DigestRunResult(sent=sent, failed=failed)
