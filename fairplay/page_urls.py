from django.urls import path

from fairplay.pages import verify_page
from games import converters  # noqa: F401 (the <row:...> converter)

urlpatterns = [
    path("tables/<row:table_id>/verify/", verify_page, name="table-verify"),
]
