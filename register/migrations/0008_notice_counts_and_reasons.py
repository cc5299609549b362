from django.conf import settings
from django.db import migrations, models
from django.db.models import Count

from law.book_citations import CITED_SFS_RE, book_citations

# `StatuteChange.Kind`'s order, as the notices count them.
KINDS = ["ADDED", "AMENDED", "REPEALED", "RENUMBERED"]


def count_units(apps, schema_editor) -> None:
    """Each amendment notice's units by kind and the acts they name, read from its version's changes. A notice whose
    stored count no longer matches them (answered before its version's changes were rebuilt) keeps neither rather
    than a wrong one, and is worded by its count alone."""
    ChangeNotice = apps.get_model("register", "ChangeNotice")
    StatuteChange = apps.get_model("law", "StatuteChange")
    notices = ChangeNotice.objects.filter(kind="amended", version__isnull=False)
    version_ids = set(notices.values_list("version_id", flat=True))
    counted: dict[int, dict[str, int]] = {}
    for row in (StatuteChange.objects.filter(to_version_id__in=version_ids).values("to_version_id", "kind")
                .annotate(n=Count("id"))):
        counted.setdefault(row["to_version_id"], {})[row["kind"]] = row["n"]
    acts = dict(StatuteChange.objects.filter(to_version_id__in=version_ids).exclude(amending_sfs="")
                .values("to_version_id").annotate(n=Count("amending_sfs", distinct=True))
                .values_list("to_version_id", "n"))
    for notice in notices.only("pk", "version_id", "change_count"):
        found = counted.get(notice.version_id, {})
        if found and sum(found.values()) == notice.change_count:
            ordered = {kind: found[kind] for kind in KINDS if found.get(kind)}
            ChangeNotice.objects.filter(pk=notice.pk).update(unit_counts=ordered,
                                                            act_count=acts.get(notice.version_id, 0))


def name_subjects(apps, schema_editor) -> None:
    """Each suggested new statute's reason, as `register.notices.subjects` reads it: the loaded documents its text
    cites whose category the workspace's laglista has now, in the order the text first cites them, leaving out the
    statutes the whole book cites (förvaltningslagen). A notice made on such a statute alone keeps no reason, and
    reads as before."""
    ChangeNotice = apps.get_model("register", "ChangeNotice")
    if not ChangeNotice.objects.filter(kind="new").exists():
        return
    book = book_citations()
    LegalDocument = apps.get_model("compliance", "LegalDocument")
    RegisterItem = apps.get_model("register", "RegisterItem")
    for notice in ChangeNotice.objects.filter(kind="new").select_related("legal_document").order_by("pk"):
        documents = dict(RegisterItem.objects.filter(workspace_id=notice.workspace_id, legal_document__isnull=False)
                         .values_list("legal_document__sfs_number", "legal_document__category"))
        subjects = set(documents.values()) - {""}
        numbers = list(dict.fromkeys(number for number in CITED_SFS_RE.findall(notice.legal_document.full_text or "")
                                     if book.share(number) <= settings.NOTICE_SUBJECT_MAX_CITING_SHARE))
        found = {number: (title, category) for number, title, category in
                 LegalDocument.objects.filter(sfs_number__in=numbers, category__in=subjects)
                 .exclude(pk=notice.legal_document_id).values_list("sfs_number", "title", "category")}
        why = [{"number": number, "title": found[number][0], "category": found[number][1],
                "listed": number in documents} for number in numbers if number in found]
        if why:
            ChangeNotice.objects.filter(pk=notice.pk).update(subject_documents=why)


class Migration(migrations.Migration):

    dependencies = [
        ("register", "0007_notice_cited_units"),
        ("law", "0005_details"),
    ]

    operations = [
        migrations.AddField(
            model_name="changenotice",
            name="unit_counts",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="changenotice",
            name="act_count",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="changenotice",
            name="subject_documents",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(count_units, migrations.RunPython.noop),
        migrations.RunPython(name_subjects, migrations.RunPython.noop),
    ]
