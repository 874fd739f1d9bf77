from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The outbox finds its handlers by name: register the games' own.
        from games import (  # noqa: F401
            bot_play,
            invitations,
            notifications,
            signals,
        )
