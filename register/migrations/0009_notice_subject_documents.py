from django.conf import settings
from django.db import migrations, models

from law.book_citations import CITED_SFS_RE, book_citations


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
        ("register", "0008_notice_unit_counts"),
    ]

    operations = [
        migrations.AddField(
            model_name="changenotice",
            name="subject_documents",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(name_subjects, migrations.RunPython.noop),
    ]
