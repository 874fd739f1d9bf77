from django.urls import path

from accounts.views import verify_email_page

urlpatterns = [
    path("verify-email/<str:token>/", verify_email_page, name="verify-email-page"),
]
