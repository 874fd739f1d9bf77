from django.apps import AppConfig


class FairplayConfig(AppConfig):
    name = "fairplay"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The outbox finds its handlers by name: register the signing of ended tables' records.
        from fairplay import publishing  # noqa: F401
