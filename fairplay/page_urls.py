from django.urls import path

from fairplay.log_pages import log_page
from fairplay.pages import verify_any_page, verify_page
from games import converters  # noqa: F401 (the <row:...> converter)

urlpatterns = [
    path("fairplay/log/", log_page, name="commitment-log"),
    path("tables/<row:table_id>/verify/", verify_page, name="table-verify"),
    path("verify/", verify_any_page, name="verify-record"),
]
