from django.urls import path

from games import (
    archive_views,
    converters,  # noqa: F401 (the <row:...> converter)
    holiday_views,
    views,
)

urlpatterns = [
    path("games/", views.CatalogueView.as_view(), name="catalogue"),
    path("tables/", views.TableListView.as_view(), name="tables"),
    path("archive/", archive_views.ArchiveView.as_view(), name="archive"),
    path("tables/<row:table_id>/", views.TableDetailView.as_view(), name="table"),
    path("tables/<row:table_id>/join/", views.JoinView.as_view(), name="table-join"),
    path("tables/<row:table_id>/moves/", views.MoveView.as_view(), name="table-moves"),
    path("tables/<row:table_id>/resign/", views.ResignView.as_view(), name="table-resign"),
    path("tables/<row:table_id>/cancel/", views.CancelView.as_view(), name="table-cancel"),
    # Under /api/accounts/me/ with the account's other settings, here because it holds tables.
    path("accounts/me/holiday/", holiday_views.HolidayView.as_view(), name="me-holiday"),
    path(
        "tables/<row:table_id>/invitations/",
        views.InvitationsView.as_view(),
        name="table-invitations",
    ),
    path(
        "tables/<row:table_id>/invite-link/",
        views.InviteLinkView.as_view(),
        name="table-invite-link",
    ),
    path("tables/<row:table_id>/decline/", views.DeclineView.as_view(), name="table-decline"),
    path("tables/<row:table_id>/again/", views.AgainView.as_view(), name="table-again-api"),
]
