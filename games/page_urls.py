"""The card room's pages: the lobby, my tables, a new table, the table itself, the rules."""

from django.urls import path

from games import (
    archive_pages,
    converters,  # noqa: F401 (the <row:...> converter)
    invitation_pages,
    pages,
    replay_pages,
    rules_pages,
    table_pages,
)

urlpatterns = [
    path("lobby/", pages.lobby, name="lobby"),
    path("games/", archive_pages.archive_page, name="archive-page"),
    path("tables/", pages.my_tables, name="my-tables"),
    path("tables/new/", pages.table_new, name="table-new"),
    path("tables/computer/", pages.table_vs_computer, name="table-vs-computer"),
    path("tables/<row:table_id>/join/", pages.table_join, name="table-join-page"),
    path("tables/<row:table_id>/again/", pages.table_again, name="table-again"),
    path(
        "tables/<row:table_id>/invite/<str:token>/",
        invitation_pages.invite_page,
        name="table-invite-page",
    ),
    path(
        "tables/<row:table_id>/invite-link/",
        invitation_pages.invite_link,
        name="table-invite-link-page",
    ),
    path(
        "tables/<row:table_id>/invitations/",
        invitation_pages.invite_by_name,
        name="table-invitations-page",
    ),
    path("tables/<row:table_id>/decline/", invitation_pages.decline, name="table-decline-page"),
    path("tables/<row:table_id>/", table_pages.table_page, name="table-page"),
    path("tables/<row:table_id>/version/", table_pages.table_version, name="table-version"),
    path("tables/<row:table_id>/board/", table_pages.table_board, name="table-board"),
    path("tables/<row:table_id>/move/", table_pages.table_move, name="table-move-page"),
    path("tables/<row:table_id>/resign/", table_pages.table_resign, name="table-resign-page"),
    path("tables/<row:table_id>/replay/", replay_pages.table_replay, name="table-replay"),
    path("rules/", rules_pages.rules_index, name="rules"),
    path("rules/<str:game>/", rules_pages.rules_page, name="rules-page"),
]
