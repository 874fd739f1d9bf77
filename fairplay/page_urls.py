from django.urls import path

from fairplay.pages import verify_page

urlpatterns = [
    path("tables/<int:table_id>/verify/", verify_page, name="table-verify"),
]
