from django.urls import path

from leaderboard import views

urlpatterns = [
    path("leaderboard/<str:game>/", views.LeaderboardView.as_view(), name="leaderboard"),
    path("players/<str:name>/", views.PlayerView.as_view(), name="player"),
]
