from django.urls import path

from accounts.views import (
    LogoutView,
    MeView,
    PasswordView,
    RegisterView,
    ResendVerificationView,
    TokenView,
    VerifyEmailView,
)

urlpatterns = [
    path("register/", RegisterView.as_view(), name="register"),
    path("token/", TokenView.as_view(), name="token"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("password/", PasswordView.as_view(), name="password"),
    path("verify-email/", VerifyEmailView.as_view(), name="verify-email"),
    path("me/", MeView.as_view(), name="me"),
    path("me/verify-email/", ResendVerificationView.as_view(), name="me-verify-email"),
]
