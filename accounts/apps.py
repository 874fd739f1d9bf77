from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the outbox handlers that mail verification and password reset links.
        from accounts import password_reset, verification  # noqa: F401
