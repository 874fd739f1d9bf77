"""The one reminder setting becomes the reminders' times (accounts 0004_mail_times): a
player who took the reminder takes both, one who had turned it off takes none."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("accounts", "0003_profile")]
AFTER = [("accounts", "0004_mail_times")]


@pytest.mark.django_db(transaction=True)
def test_the_reminder_setting_becomes_both_reminders_or_none() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old: Any = executor.loader.project_state(BEFORE).apps
    User = old.get_model("auth", "User")
    MailPreferences = old.get_model("accounts", "MailPreferences")
    took = User.objects.create(username="took", email="took@example.com")
    declined = User.objects.create(username="declined", email="declined@example.com")
    MailPreferences.objects.create(user=took, reminder=True, your_turn=False)
    MailPreferences.objects.create(user=declined, reminder=False)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new: Any = executor.loader.project_state(AFTER).apps
    after = new.get_model("accounts", "MailPreferences").objects

    assert after.get(user__username="took").reminders == "both"
    assert after.get(user__username="took").your_turn is False
    assert after.get(user__username="declined").reminders == "none"
    assert after.get(user__username="declined").digest is False

    # And back: none is the reminder turned off, anything else on.
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    back = executor.loader.project_state(BEFORE).apps.get_model("accounts", "MailPreferences")
    assert back.objects.get(user__username="took").reminder is True
    assert back.objects.get(user__username="declined").reminder is False

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
