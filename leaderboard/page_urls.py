"""The leaderboards and players' pages. The API's names (leaderboard, player) are its own."""

from django.urls import path

from leaderboard import pages

urlpatterns = [
    path("leaderboard/", pages.leaderboards, name="leaderboards"),
    path("leaderboard/<str:game>/", pages.leaderboard_page, name="leaderboard-page"),
    path("players/<str:name>/", pages.player_page, name="player-page"),
]
