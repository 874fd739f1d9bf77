"""Usernames unique in any case, e-mail addresses unique in any case, and verified addresses.

auth.User stays Django's own; the uniqueness is two expression indexes on its
table, which PostgreSQL and SQLite both support (the partial one leaves the
accounts without an address alone).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import Count
from django.db.models.functions import Lower


def refuse_duplicates(apps, schema_editor):
    """Say which accounts clash, rather than fail on the index with a bare database error."""
    User = apps.get_model("auth", "User")
    clashes = []
    for field in ("username", "email"):
        rows = (
            User.objects.exclude(**{field: ""})
            .annotate(key=Lower(field))
            .values("key")
            .annotate(n=Count("id"))
            .filter(n__gt=1)
        )
        clashes += [f"{field} {row['key']!r} ({row['n']} accounts)" for row in rows]
    if clashes:
        raise RuntimeError(
            "accounts 0002 makes usernames and e-mail addresses unique in any case, but these"
            " are shared: " + "; ".join(clashes) + ". Rename or merge those accounts, then migrate."
        )


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(refuse_duplicates, migrations.RunPython.noop),
        migrations.RunSQL(
            "CREATE UNIQUE INDEX accounts_user_username_ci ON auth_user (lower(username))",
            "DROP INDEX IF EXISTS accounts_user_username_ci",
        ),
        migrations.RunSQL(
            "CREATE UNIQUE INDEX accounts_user_email_ci ON auth_user (lower(email))"
            " WHERE email <> ''",
            "DROP INDEX IF EXISTS accounts_user_email_ci",
        ),
        migrations.CreateModel(
            name="EmailVerification",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("email", models.EmailField(max_length=254)),
                ("verified_at", models.DateTimeField()),
                ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="email_verification", to=settings.AUTH_USER_MODEL)),
            ],
        ),
    ]
