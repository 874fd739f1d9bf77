from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the outbox handler that mails verification links.
        from accounts import verification  # noqa: F401
