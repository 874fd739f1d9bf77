from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config.errors import api_not_found
from games.pages import HomeView
from games.views import healthz

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/accounts/", include("accounts.urls")),
    path("api/", include("games.urls")),
    path("api/", include("fairplay.urls")),
    path("api/", include("leaderboard.urls")),
    path("", include("fairplay.page_urls")),
    path("", include("games.page_urls")),
    path("", include("leaderboard.page_urls")),
    path("accounts/", include("accounts.page_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's init script at its own URL (?script=), not inline,
    # so that the page meets the Content-Security-Policy.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api_docs.html"),
        name="api-docs",
    ),
    re_path(r"^api/(?P<path>.*)$", api_not_found),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.not_found"
handler500 = "config.errors.server_error"
