"""Fairdeal's settings, read from the environment.

``FAIRDEAL_ENV`` is ``development`` (the default: SQLite, an in-memory broker,
a development secret key), ``test`` or ``production``. Production refuses to
start on any development default: it needs ``SECRET_KEY``, ``DATABASE_URL``
(PostgreSQL), ``ALLOWED_HOSTS`` and ``CELERY_BROKER_URL`` from the environment.
"""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")

FAIRDEAL_ENV = env.str("FAIRDEAL_ENV", default="development")
if FAIRDEAL_ENV not in ("development", "test", "production"):
    raise ImproperlyConfigured("FAIRDEAL_ENV is development, test or production")
PRODUCTION = FAIRDEAL_ENV == "production"

DEVELOPMENT_SECRET_KEY = "development-only-insecure-key-never-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default=DEVELOPMENT_SECRET_KEY)
DEBUG = env.bool("DEBUG", default=FAIRDEAL_ENV == "development")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])

DEFAULT_DATABASE_URL = f"sqlite:///{VAR_DIR / 'fairdeal.sqlite3'}"
DATABASES = {"default": env.db_url("DATABASE_URL", default=DEFAULT_DATABASE_URL)}
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=0))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(exist_ok=True)
    # The one-command run has two writers, the web process and the worker. Readers
    # wait for a writer instead of failing at once; transactions take the write lock
    # when they begin (a deferred one that reads and then writes fails at once with
    # "database is locked" when the other process writes); WAL lets reads go on
    # while a write does.
    sqlite = DATABASES["default"].setdefault("OPTIONS", {})
    sqlite.setdefault("timeout", 20)
    sqlite.setdefault("transaction_mode", "IMMEDIATE")
    sqlite.setdefault("init_command", "PRAGMA journal_mode=WAL;")

# The development default is kombu's filesystem transport: an embedded broker
# that needs no server but still joins the web process to the worker and beat.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for _folder in ("queue", "processed", "control"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
# Tests run tasks inline unless they start a real worker themselves.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=FAIRDEAL_ENV == "test")
CELERY_TASK_IGNORE_RESULT = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# The Ed25519 key that signs game records: PEM text in FAIRDEAL_SIGNING_KEY, or a
# PEM file named by FAIRDEAL_SIGNING_KEY_FILE. Outside production a development
# key is generated into var/ on first use; production refuses to start without one.
FAIRDEAL_SIGNING_KEY = env.str("FAIRDEAL_SIGNING_KEY", default="")
FAIRDEAL_SIGNING_KEY_FILE = env.str("FAIRDEAL_SIGNING_KEY_FILE", default="")
FAIRDEAL_DEVELOPMENT_KEY_FILE = VAR_DIR / "development-signing-key.pem"

if PRODUCTION:
    problems = []
    if not FAIRDEAL_SIGNING_KEY and not (
        FAIRDEAL_SIGNING_KEY_FILE and Path(FAIRDEAL_SIGNING_KEY_FILE).is_file()
    ):
        problems.append(
            "FAIRDEAL_SIGNING_KEY or FAIRDEAL_SIGNING_KEY_FILE must give the record signing key"
        )
    if SECRET_KEY == DEVELOPMENT_SECRET_KEY or len(SECRET_KEY) < 32:
        problems.append("SECRET_KEY must be set to a long random value")
    if DEBUG:
        problems.append("DEBUG must be off")
    if (
        "DATABASE_URL" not in env
        or DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql"
    ):
        problems.append("DATABASE_URL must name a PostgreSQL database")
    if "ALLOWED_HOSTS" not in env:
        problems.append("ALLOWED_HOSTS must be set")
    if (
        CELERY_BROKER_URL.split("://")[0] in ("memory", "filesystem")
        or "CELERY_BROKER_URL" not in env
    ):
        problems.append("CELERY_BROKER_URL must name a real broker")
    if problems:
        raise ImproperlyConfigured("production settings refused: " + "; ".join(problems))
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_CONTENT_TYPE_NOSNIFF = True

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "leaderboard",
    "fairplay",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=VAR_DIR / "static")
# Outside production, static files (the API docs page's) are served from the apps directly.
WHITENOISE_USE_FINDERS = not PRODUCTION
if not PRODUCTION:
    Path(STATIC_ROOT).mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Request bodies are small JSON documents; anything larger is refused with 413.
FAIRDEAL_MAX_BODY_BYTES = env.int("FAIRDEAL_MAX_BODY_BYTES", default=16 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = FAIRDEAL_MAX_BODY_BYTES

# Per-move deadlines, in seconds: from a minute (configurable for tests) to a week.
FAIRDEAL_MIN_DEADLINE_SECONDS = env.int("FAIRDEAL_MIN_DEADLINE_SECONDS", default=60)
FAIRDEAL_MAX_DEADLINE_SECONDS = env.int("FAIRDEAL_MAX_DEADLINE_SECONDS", default=7 * 24 * 3600)
# A reminder mail goes out when this share of a move's time is left.
FAIRDEAL_REMINDER_SHARE = env.float("FAIRDEAL_REMINDER_SHARE", default=0.25)
# Links in mail point here.
FAIRDEAL_BASE_URL = env.str("FAIRDEAL_BASE_URL", default="http://127.0.0.1:8000")
# Mail: printed to the console in development; an SMTP URL (EMAIL_URL) in production.
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH", default=str(VAR_DIR / "mail"))
if "EMAIL_URL" in env:
    globals().update(env.email_url("EMAIL_URL"))  # EMAIL_HOST, EMAIL_PORT, EMAIL_USE_TLS...
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Fairdeal <fairdeal@localhost>")
# How often Celery beat sweeps for passed deadlines, in seconds.
FAIRDEAL_SWEEP_SECONDS = env.float("FAIRDEAL_SWEEP_SECONDS", default=5.0)
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {
        "task": "games.sweep_deadlines",
        "schedule": FAIRDEAL_SWEEP_SECONDS,
        # A sweep that waited longer than the interval is replaced by the next one.
        "options": {"expires": FAIRDEAL_SWEEP_SECONDS},
    },
    "send-reminders": {
        "task": "games.send_reminders",
        "schedule": FAIRDEAL_SWEEP_SECONDS,
        "options": {"expires": FAIRDEAL_SWEEP_SECONDS},
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.StrictTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.StrictJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_RATES": {"accounts": env.str("FAIRDEAL_ACCOUNTS_RATE", default="60/min")},
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Fairdeal API",
    "DESCRIPTION": (
        "A play-by-deadline card room: tables, moves on a deadline, and deals "
        "anyone can verify after the game. Authenticate with "
        "`Authorization: Token <key>` from `POST /api/accounts/token/`."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
