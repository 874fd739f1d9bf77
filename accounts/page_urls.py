"""The account pages, under /accounts/. The API's names (register, token, logout,
password, me, verify-email) are its own: the pages' names say "page" or are new."""

from django.urls import path

from accounts import pages
from accounts.views import verify_email_page

urlpatterns = [
    path("signup/", pages.signup, name="signup"),
    path("login/", pages.login_page, name="login-page"),
    path("logout/", pages.logout_page, name="logout-page"),
    path("password-reset/", pages.password_reset, name="password-reset"),
    path("password-reset/done/", pages.password_reset_done, name="password-reset-done"),
    path(
        "password-reset/<uidb64>/<token>/",
        pages.password_reset_confirm,
        name="password-reset-confirm",
    ),
    path("password-reset/complete/", pages.password_reset_complete, name="password-reset-complete"),
    path("settings/", pages.settings_page, name="settings"),
    path("settings/mail/", pages.settings_mail, name="settings-mail"),
    path("settings/leaderboards/", pages.settings_leaderboards, name="settings-leaderboards"),
    path("settings/play/", pages.settings_play, name="settings-play"),
    path("settings/holiday/", pages.settings_holiday, name="settings-holiday"),
    path("settings/holiday/end/", pages.settings_holiday_end, name="settings-holiday-end"),
    path("settings/verify-email/", pages.settings_verify_email, name="settings-verify-email"),
    path("settings/token/", pages.settings_token, name="settings-token"),
    path("settings/token/revoke/", pages.settings_token_revoke, name="settings-token-revoke"),
    path("settings/password/", pages.settings_password, name="settings-password"),
    path("verify-email/<str:token>/", verify_email_page, name="verify-email-page"),
    path("unsubscribe/<str:token>/", pages.unsubscribe_page, name="unsubscribe"),
]
