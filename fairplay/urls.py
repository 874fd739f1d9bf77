from django.urls import path

from fairplay import views
from games import converters  # noqa: F401 (the <row:...> converter)

urlpatterns = [
    path("fairplay/key/", views.KeyView.as_view(), name="fairplay-key"),
    path("fairplay/keys/", views.KeyListView.as_view(), name="fairplay-keys"),
    path("tables/<row:table_id>/entropy/", views.EntropyView.as_view(), name="table-entropy"),
    path("tables/<row:table_id>/record/", views.RecordView.as_view(), name="table-record"),
]
