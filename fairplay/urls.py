from django.urls import path

from fairplay import views

urlpatterns = [
    path("fairplay/key/", views.KeyView.as_view(), name="fairplay-key"),
    path("tables/<int:table_id>/entropy/", views.EntropyView.as_view(), name="table-entropy"),
    path("tables/<int:table_id>/record/", views.RecordView.as_view(), name="table-record"),
]
