from django.urls import path

from fairplay import log_views, views
from games import converters  # noqa: F401 (the <row:...> converter)

urlpatterns = [
    path("fairplay/key/", views.KeyView.as_view(), name="fairplay-key"),
    path("fairplay/keys/", views.KeyListView.as_view(), name="fairplay-keys"),
    # The commitment log (docs/fairplay.md section 17); the checkpoint's path as C2SP's logs.
    path("fairplay/log/checkpoint", log_views.CheckpointView.as_view(), name="log-checkpoint"),
    path("fairplay/log/inclusion/", log_views.InclusionView.as_view(), name="log-inclusion"),
    path("fairplay/log/consistency/", log_views.ConsistencyView.as_view(), name="log-consistency"),
    path("fairplay/log/entries/", log_views.EntriesView.as_view(), name="log-entries"),
    path("tables/<row:table_id>/entropy/", views.EntropyView.as_view(), name="table-entropy"),
    path("tables/<row:table_id>/record/", views.RecordView.as_view(), name="table-record"),
]
