"""What a browser session's request under /api/ without its CSRF token is told, wherever
it is refused: by Django's middleware (``config.errors.csrf_failure``) or by DRF's session
check (``accounts.authentication.CsrfSessionAuthentication``)."""

CSRF_FAILED = "csrf_failed"
CSRF_REFUSAL = (
    "The request was refused: a browser session must send its CSRF token; "
    "API clients authenticate with a token instead."
)
