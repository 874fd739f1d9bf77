from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The outbox handlers that mail verification and password reset links, and the
        # receivers that forget cached API tokens when they are revoked or their user changes.
        from accounts import password_reset, signals, verification  # noqa: F401
