from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The outbox finds its handlers by name: register the rating of finished tables.
        from leaderboard import services  # noqa: F401
