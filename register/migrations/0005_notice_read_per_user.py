"""Read state per member: `NoticeRead` (notice, user, read_at) replaces ChangeNotice.read_at / read_by, which
said that someone in the workspace had opened the notice. The one reader each notice recorded keeps it read
(for that member only); the others see it unread until they open it."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def reads_forward(apps, schema_editor):
    ChangeNotice = apps.get_model("register", "ChangeNotice")
    NoticeRead = apps.get_model("register", "NoticeRead")
    NoticeRead.objects.bulk_create(
        [NoticeRead(notice_id=pk, user_id=user_id, read_at=read_at)
         for pk, user_id, read_at in ChangeNotice.objects.filter(read_by__isnull=False, read_at__isnull=False)
         .values_list("pk", "read_by_id", "read_at").iterator(chunk_size=2000)],
        batch_size=1000)


def reads_backward(apps, schema_editor):
    ChangeNotice = apps.get_model("register", "ChangeNotice")
    NoticeRead = apps.get_model("register", "NoticeRead")
    for read in NoticeRead.objects.order_by("notice_id", "read_at").distinct("notice_id").iterator(chunk_size=2000):
        ChangeNotice.objects.filter(pk=read.notice_id).update(read_at=read.read_at, read_by_id=read.user_id)


class Migration(migrations.Migration):

    dependencies = [
        ('register', '0004_change_notices'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='NoticeRead',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('read_at', models.DateTimeField(verbose_name='läst')),
                ('notice', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reads', to='register.changenotice')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'läst lagändring',
                'verbose_name_plural': 'lästa lagändringar',
                'constraints': [models.UniqueConstraint(fields=('notice', 'user'), name='notice_read_once_per_user')],
            },
        ),
        migrations.RunPython(reads_forward, reads_backward),
        migrations.RemoveField(
            model_name='changenotice',
            name='read_at',
        ),
        migrations.RemoveField(
            model_name='changenotice',
            name='read_by',
        ),
    ]
