from django.urls import path

from games import views

urlpatterns = [
    path("games/", views.CatalogueView.as_view(), name="catalogue"),
    path("tables/", views.TableListView.as_view(), name="tables"),
    path("tables/<int:table_id>/", views.TableDetailView.as_view(), name="table"),
    path("tables/<int:table_id>/join/", views.JoinView.as_view(), name="table-join"),
    path("tables/<int:table_id>/moves/", views.MoveView.as_view(), name="table-moves"),
    path("tables/<int:table_id>/resign/", views.ResignView.as_view(), name="table-resign"),
    path("tables/<int:table_id>/cancel/", views.CancelView.as_view(), name="table-cancel"),
]
