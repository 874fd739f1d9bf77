"""Fairdeal's settings, read from the environment.

``FAIRDEAL_ENV`` is ``development`` (the default: SQLite, an in-memory broker,
a development secret key), ``test`` or ``production``. Production refuses to
start on any development default or anything unsafe: it needs ``SECRET_KEY``,
``DATABASE_URL`` (PostgreSQL), ``ALLOWED_HOSTS``, ``CELERY_BROKER_URL``, the
signing key, real mail and an https ``FAIRDEAL_BASE_URL`` from the environment.
``docs/configuration.md`` lists every variable read here, its default and what
production refuses; ``docs/deploy.md`` says why.
"""

import ipaddress
import re
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import environ
from csp.constants import NONE, SELF
from django.core.checks.security.base import (
    SECRET_KEY_INSECURE_PREFIX,
    SECRET_KEY_MIN_LENGTH,
    SECRET_KEY_MIN_UNIQUE_CHARACTERS,
)
from django.core.exceptions import ImproperlyConfigured

from config.site_files import home, site_path
from fairplay.keys import signing_key_problem

# A checkout, or the working directory of a site installed from the release wheel.
BASE_DIR = home()

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")
# Where the embedded defaults keep their files (the SQLite database, the filesystem
# broker, the development signing key); production needs none of them.
VAR_DIR = Path(env.str("FAIRDEAL_VAR_DIR", default=str(BASE_DIR / "var")))

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
# A web or worker process keeps its connection open across requests in production
# (opening one cost 17 % of a move's CPU), checked before each request reuses it so a
# restarted database costs one error-free reconnect; elsewhere each request opens its own.
DATABASES["default"].setdefault(
    "CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=600 if PRODUCTION else 0)
)
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
# DATABASE_URL names a pooler in transaction mode (PgBouncer, docs/deploy.md): each
# transaction may run on another server session, so nothing may outlive one there. Django's
# server-side cursors (QuerySet.iterator() outside a transaction) are declared WITH HOLD
# on one session and fetched from on the next: off. So are prepared statements, by default.
FAIRDEAL_TRANSACTION_POOLER = env.bool("FAIRDEAL_TRANSACTION_POOLER", default=False)
if FAIRDEAL_TRANSACTION_POOLER:
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.bool(
    "FAIRDEAL_PREPARED_STATEMENTS", default=not FAIRDEAL_TRANSACTION_POOLER
):
    # psycopg binds the parameters on the server and prepares a statement once it has run
    # twice on a connection: PostgreSQL parses and plans the few statements of a move once
    # (Django's "PostgreSQL notes"). Off behind PgBouncer in transaction mode without its
    # max_prepared_statements (1.21 and later; Debian 12's is 1.18), where a prepared
    # statement stays on the server session that prepared it: the next transaction, on
    # another, does not find it, and another client's of the same name collides with it.
    postgresql = DATABASES["default"].setdefault("OPTIONS", {})
    postgresql.setdefault("server_side_binding", True)
    postgresql.setdefault("prepare_threshold", 2)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # The one-command run has two writers, the web process and the worker. Readers
    # wait for a writer instead of failing at once; transactions take the write lock
    # when they begin (a deferred one that reads and then writes fails at once with
    # "database is locked" when the other process writes); WAL lets reads go on
    # while a write does.
    sqlite = DATABASES["default"].setdefault("OPTIONS", {})
    sqlite.setdefault("timeout", 20)
    sqlite.setdefault("transaction_mode", "IMMEDIATE")
    sqlite.setdefault("init_command", "PRAGMA journal_mode=WAL;")
# A streaming replica of the primary (docs/deploy.md, "A read replica"), optional: the public
# reads that may lag a moment go there (config/replica.py says which, and what happens when
# it is down). Reached as the primary is (the same connection age, checks, pooler and
# prepared statements' options); only its address is its own. Tests read the primary's own
# test database in its place (TEST MIRROR: nothing is created on a read-only server).
FAIRDEAL_REPLICA_RETRY_SECONDS = env.float("FAIRDEAL_REPLICA_RETRY_SECONDS", default=10.0)
if "DATABASE_REPLICA_URL" in env:
    _replica = env.db_url("DATABASE_REPLICA_URL")
    DATABASES["replica"] = {
        **DATABASES["default"],
        **_replica,
        "OPTIONS": {**DATABASES["default"].get("OPTIONS", {}), **_replica.get("OPTIONS", {})},
        "TEST": {"MIRROR": "default"},
    }
    DATABASE_ROUTERS = ["config.replica.ReplicaRouter"]

# The development default is kombu's filesystem transport: an embedded broker
# that needs no server but still joins the web process to the worker and beat.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
# The broker's settings follow its URL's scheme, here and in the queues below.
CELERY_BROKER_SCHEME = CELERY_BROKER_URL.partition("://")[0].lower()
AMQP_SCHEMES = ("amqp", "amqps", "pyamqp")
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
        # A transport without push polls its folder; kombu's default of once a second
        # delivered about one task a second (bench/broker.py measures the rate).
        "polling_interval": env.float("FAIRDEAL_BROKER_POLL_SECONDS", default=0.01),
    }
elif CELERY_BROKER_SCHEME in AMQP_SCHEMES:
    # RabbitMQ (docs/deploy.md, "Which broker"): py-amqp's publisher confirms, so a
    # publish returns once the broker has the message (or raises, and the outbox keeps
    # the work for beat's drain); our queues are quorum queues (below), replicated and
    # written to disk before the broker confirms.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
else:
    # A publish (the wake-up after a commit) waits for no broker for long.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 5}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2}
# Tests run tasks inline unless they start a real worker themselves.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=FAIRDEAL_ENV == "test")
CELERY_TASK_IGNORE_RESULT = True
# Beat keeps no schedule file: every entry runs every few seconds, so there is nothing
# worth remembering across a restart, and no file or folder that can be missing.
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"
# Beat's periodic work has a queue of its own, which every worker consumes beside the
# default one (kombu takes from each queue in turn): no backlog holds a sweep back.
CELERY_TASK_DEFAULT_QUEUE = "celery"
# The bots' moves too (games.outbox's lane ``bots``): production gives them workers of
# their own (docs/deploy.md), so that a flood of bots' moves never delays a sweep or mail.
CELERY_TASK_QUEUES: dict[str, dict[str, object]] = {"celery": {}, "periodic": {}, "bots": {}}
if CELERY_BROKER_SCHEME in AMQP_SCHEMES:
    # Quorum queues on RabbitMQ: each message replicated and on disk before it is
    # confirmed, unacknowledged ones redelivered when a worker's connection drops. Celery
    # sees them and asks for per-consumer prefetch (quorum queues have no global QoS).
    # Nothing of ours needs what they lack: no priorities, no countdown or ETA (beat's
    # ticks; drain-bots' ``expires`` is a message TTL, which they keep). docs/deploy.md.
    # Should a countdown come, Celery's native delayed delivery carries it, which
    # needs a topic exchange (with the direct default the worker holds an ETA task
    # unacknowledged until it is due); a topic routes our queues' names as direct did.
    CELERY_TASK_DEFAULT_EXCHANGE_TYPE = "topic"
    CELERY_TASK_QUEUES = {
        name: {"queue_arguments": {"x-queue-type": "quorum"}} for name in CELERY_TASK_QUEUES
    }
    CELERY_TASK_DEFAULT_QUEUE_TYPE = "quorum"
    CELERY_TASK_CREATE_MISSING_QUEUE_TYPE = "quorum"
    CELERY_WORKER_DETECT_QUORUM_QUEUES = True
CELERY_TASK_ROUTES = {
    "games.drain_bots": {"queue": "bots"},
    "games.sweep_deadlines": {"queue": "periodic"},
    "games.mail_turns": {"queue": "periodic"},
    "games.drain_outbox": {"queue": "periodic"},
    "games.purge_outbox": {"queue": "periodic"},
    "games.expire_open_tables": {"queue": "periodic"},
    "games.fill_with_bots": {"queue": "periodic"},
    "fairplay.sequence_log": {"queue": "periodic"},
    "leaderboard.reckon_boards": {"queue": "periodic"},
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# The Ed25519 key that signs game records: PEM text in FAIRDEAL_SIGNING_KEY, or a
# PEM file named by FAIRDEAL_SIGNING_KEY_FILE. Outside production a development
# key is generated into var/ on first use; production refuses to start without one.
FAIRDEAL_SIGNING_KEY = env.str("FAIRDEAL_SIGNING_KEY", default="")
FAIRDEAL_SIGNING_KEY_FILE = env.str("FAIRDEAL_SIGNING_KEY_FILE", default="")
FAIRDEAL_DEVELOPMENT_KEY_FILE = VAR_DIR / "development-signing-key.pem"

# Links in mail point here.
FAIRDEAL_BASE_URL = env.str("FAIRDEAL_BASE_URL", default="http://127.0.0.1:8000")
# The commitment log's origin: the first line of its checkpoints and its key's name
# (docs/fairplay.md section 17). Never change it once the log has checkpoints.
FAIRDEAL_LOG_ORIGIN = env.str(
    "FAIRDEAL_LOG_ORIGIN", default=urlsplit(FAIRDEAL_BASE_URL).netloc + "/commitments"
)
# Mail: printed to the console in development; an SMTP URL (EMAIL_URL) in production.
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH", default=str(VAR_DIR / "mail"))
if "EMAIL_URL" in env:
    globals().update(env.email_url("EMAIL_URL"))  # EMAIL_HOST, EMAIL_PORT, EMAIL_USE_TLS...
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Fairdeal <fairdeal@localhost>")

# HTTPS, on by default in production. A proxy or load balancer that already redirects
# to https and sends HSTS itself may have them turned off here (docs/deploy.md).
SECURE_SSL_REDIRECT = env.bool("FAIRDEAL_SSL_REDIRECT", default=PRODUCTION)
ONE_YEAR = 365 * 24 * 3600
SECURE_HSTS_SECONDS = env.int("FAIRDEAL_HSTS_SECONDS", default=ONE_YEAR if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("FAIRDEAL_HSTS_INCLUDE_SUBDOMAINS", default=PRODUCTION)
# A load balancer checks the health endpoint over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz/?$"]
# HSTS preload (security.W021) asks browsers to hard-code https for the domain and
# every subdomain, and is slow to undo: the site's owner decides it, not these settings.
SILENCED_SYSTEM_CHECKS = ["security.W021"]
# X-Forwarded-Proto is a header anyone can send: it is believed only when the operator
# says a proxy in front of every request sets it (and overwrites what a client sent).
FAIRDEAL_TRUST_FORWARDED_PROTO = env.bool("FAIRDEAL_TRUST_FORWARDED_PROTO", default=False)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if FAIRDEAL_TRUST_FORWARDED_PROTO else None
)

# Metrics for Prometheus (config/metrics.py; docs/deploy.md, "Metrics"): GET /metrics answers
# a request from one of FAIRDEAL_METRICS_NETWORKS (CIDR, comma-separated; the client's address
# as the throttles know it) or with "Authorization: Bearer FAIRDEAL_METRICS_TOKEN". A Celery
# worker serves its own processes' counts on FAIRDEAL_WORKER_METRICS_BIND (host:port), to the
# same readers. Each service counts in its own PROMETHEUS_MULTIPROC_DIR (read by
# prometheus_client itself as a process starts), which it empties as it starts.
FAIRDEAL_METRICS_TOKEN = env.str("FAIRDEAL_METRICS_TOKEN", default="")
try:
    FAIRDEAL_METRICS_NETWORKS = [
        ipaddress.ip_network(network.strip(), strict=False)
        for network in env.list("FAIRDEAL_METRICS_NETWORKS", default=[])
        if network.strip()
    ]
except ValueError as error:
    raise ImproperlyConfigured(f"FAIRDEAL_METRICS_NETWORKS: {error}") from error
FAIRDEAL_WORKER_METRICS_BIND = env.str("FAIRDEAL_WORKER_METRICS_BIND", default="")
if FAIRDEAL_WORKER_METRICS_BIND and not re.fullmatch(r"[^:\s]+:\d+", FAIRDEAL_WORKER_METRICS_BIND):
    raise ImproperlyConfigured("FAIRDEAL_WORKER_METRICS_BIND is host:port (0.0.0.0:9101)")
# A token a scraper keeps in its configuration: long enough that guessing it is hopeless.
FAIRDEAL_METRICS_TOKEN_MIN_LENGTH = 32


def _same_redis_database(first: str, second: str) -> bool:
    """Whether two Redis URLs name one database of one server (db 0 when none is named)."""
    a, b = urlsplit(first), urlsplit(second)
    return (a.hostname, a.port or 6379, a.path.strip("/") or "0") == (
        b.hostname,
        b.port or 6379,
        b.path.strip("/") or "0",
    ) and b.scheme in ("redis", "rediss")


def is_local_host(host: str | None) -> bool:
    """Whether a URL's host is this machine: localhost, 127.0.0.0/8, ::1, 0.0.0.0 or none."""
    if not host:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        host = host.rstrip(".").lower()
        return host == "localhost" or host.endswith(".localhost")
    return address.is_loopback or address.is_unspecified


if PRODUCTION:
    problems = []
    # A readable Ed25519 private key, or no start: a bad one would fail at the first record.
    if key_problem := signing_key_problem(FAIRDEAL_SIGNING_KEY, FAIRDEAL_SIGNING_KEY_FILE):
        problems.append(key_problem)
    # Django's own deploy check (security.W009) would only warn; production refuses.
    if (
        SECRET_KEY == DEVELOPMENT_SECRET_KEY
        or len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH
        or len(set(SECRET_KEY)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS
        or SECRET_KEY.startswith(SECRET_KEY_INSECURE_PREFIX)
    ):
        problems.append(
            f"SECRET_KEY must be set to a long random value (at least {SECRET_KEY_MIN_LENGTH}"
            f" characters, {SECRET_KEY_MIN_UNIQUE_CHARACTERS} of them different)"
        )
    if DEBUG:
        problems.append("DEBUG must be off")
    # The tests' inline tasks: a request would itself run the work it wakes (mail, ratings,
    # the bots' moves) before it answers, on the web's CPU, its failures unretried.
    if CELERY_TASK_ALWAYS_EAGER:
        problems.append("CELERY_TASK_ALWAYS_EAGER must be off: tasks belong to the workers")
    # The log's origin is its checkpoints' key name (C2SP signed note): one with a space or
    # a "+" would fail at the first checkpoint (fairplay.tlog.sign_checkpoint), not here.
    if not re.fullmatch(r"[^\s+]+", FAIRDEAL_LOG_ORIGIN):
        problems.append(
            f"FAIRDEAL_LOG_ORIGIN must be a key name, without spaces or +: {FAIRDEAL_LOG_ORIGIN!r}"
        )
    if (
        "DATABASE_URL" not in env
        or DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql"
    ):
        problems.append("DATABASE_URL must name a PostgreSQL database")
    if "replica" in DATABASES and DATABASES["replica"]["ENGINE"] != "django.db.backends.postgresql":
        problems.append("DATABASE_REPLICA_URL must name a PostgreSQL streaming replica")
    if "ALLOWED_HOSTS" not in env or not ALLOWED_HOSTS:
        problems.append("ALLOWED_HOSTS must be set")
    elif any(not host.strip("*.") for host in ALLOWED_HOSTS):
        # "*" lets any Host header through, and with it poisoned links in mail.
        problems.append("ALLOWED_HOSTS must name the hosts, not a wildcard such as *")
    # The console, locmem and dummy backends never deliver: players would miss their
    # turns and deadlines. SMTP (EMAIL_URL), the file backend and any other backend
    # are explicit choices that keep every message.
    if EMAIL_BACKEND in {
        f"django.core.mail.backends.{name}.EmailBackend" for name in ("console", "locmem", "dummy")
    }:
        problems.append(
            "EMAIL_URL (or EMAIL_BACKEND) must deliver mail:"
            " not the console, locmem or dummy backend"
        )
    # The file backend's folder, named by a path that does not depend on where the
    # process was started: filemail:///var/spool/x is "var/spool/x" to django-environ
    # (the absolute path takes four slashes: filemail:////var/spool/x).
    if EMAIL_BACKEND == "django.core.mail.backends.filebased.EmailBackend" and not (
        Path(EMAIL_FILE_PATH).is_absolute()
    ):
        problems.append(
            f"the mail file path must be absolute, not {EMAIL_FILE_PATH!r}"
            " (EMAIL_URL=filemail:////var/spool/fairdeal, four slashes)"
        )
    # Links in mail must reach players: https, and not this machine.
    base_url = urlsplit(FAIRDEAL_BASE_URL)
    if base_url.scheme != "https" or is_local_host(base_url.hostname):
        problems.append(
            "FAIRDEAL_BASE_URL must be the site's public https address, not http or localhost"
        )
    # Mail from an address at localhost is refused or filed as spam by the players' servers.
    sender_domain = parseaddr(DEFAULT_FROM_EMAIL)[1].rpartition("@")[2]
    if is_local_host(sender_domain) or "." not in sender_domain:
        problems.append(
            "DEFAULT_FROM_EMAIL must be an address of the site's own mail domain, not localhost"
        )
    if (
        CELERY_BROKER_URL.split("://")[0] in ("memory", "filesystem")
        or "CELERY_BROKER_URL" not in env
    ):
        problems.append("CELERY_BROKER_URL must name a real broker")
    elif CELERY_BROKER_SCHEME not in ("redis", "rediss", *AMQP_SCHEMES):
        # Late acks, redelivery and (RabbitMQ) confirms and quorum queues are set, and
        # tested, for these two only: librabbitmq://, say, has no publisher confirms.
        problems.append(
            "CELERY_BROKER_URL must be Redis (redis://, rediss://) or RabbitMQ"
            " (amqp://, amqps://): the brokers whose delivery settings are set and tested"
        )
    elif CELERY_BROKER_SCHEME in ("redis", "rediss") and (
        _same_redis_database(CELERY_BROKER_URL, env.str("CACHE_URL", default=""))
    ):
        # Clearing the cache (or its eviction under maxmemory) would drop queued tasks.
        problems.append("CELERY_BROKER_URL and CACHE_URL must be different Redis databases")
    # Throttle counters must be shared by every web process (accounts block below).
    if not env.str("CACHE_URL", default="").startswith(("redis://", "rediss://")):
        problems.append(
            "CACHE_URL must name Redis (redis:// or rediss://), shared by every process"
        )
    # Metrics: a token that cannot be guessed, and a worker's served to somebody. (The web and
    # the workers refuse to start without PROMETHEUS_MULTIPROC_DIR: config/metrics.py.)
    if FAIRDEAL_METRICS_TOKEN and len(FAIRDEAL_METRICS_TOKEN) < FAIRDEAL_METRICS_TOKEN_MIN_LENGTH:
        problems.append(
            f"FAIRDEAL_METRICS_TOKEN must be at least {FAIRDEAL_METRICS_TOKEN_MIN_LENGTH}"
            " random characters"
        )
    if FAIRDEAL_WORKER_METRICS_BIND and not (FAIRDEAL_METRICS_TOKEN or FAIRDEAL_METRICS_NETWORKS):
        problems.append(
            "FAIRDEAL_WORKER_METRICS_BIND needs FAIRDEAL_METRICS_TOKEN or FAIRDEAL_METRICS_NETWORKS"
        )
    if problems:
        raise ImproperlyConfigured("production settings refused: " + "; ".join(problems))
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
    "csp",
    "accounts",
    "games",
    "leaderboard",
    "fairplay",
]

MIDDLEWARE = [
    # A load balancer's probe of /healthz, whatever its Host (config/middleware.py says why).
    "config.middleware.HealthProbeMiddleware",
    # GET /metrics, whatever its Host, and every other request's time (games/metrics.py).
    "games.metrics.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.BodySizeLimitMiddleware",
    "config.middleware.PrivateAnswersMiddleware",
    "config.middleware.LostDatabaseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# The Content-Security-Policy, in every environment so that development meets it first:
# everything from this site, nothing inline (no <script> or <style> in a page, no
# style="" attribute), never framed. Swagger UI draws its icons as data: images.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

ROOT_URLCONF = "config.urls"
# A CSRF refusal under /api/ is JSON like every other API error.
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [site_path("templates")],
        "OPTIONS": {
            # Django's own two, then each game's fragments from its package in games/catalogue
            # (games/template_loader.py), all behind the cached loader.
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "django.template.loaders.filesystem.Loader",
                        "django.template.loaders.app_directories.Loader",
                        "games.template_loader.Loader",
                    ],
                ),
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.waiting_count",
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
# The site's own assets, beside templates/; the apps bring theirs (Swagger UI's, the admin's).
STATICFILES_DIRS = [site_path("static")]
# Django's two finders, the games' stylesheets, each in its game's package, and the files
# of the check in the browser.
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "games.static_finder.Finder",
    "fairplay.browser_check.Finder",
]
# The check in the browser (fairplay/browser_check.py): Pyodide's core from its npm package
# (package.json; `make browser-verifier` runs npm ci), and the verifier's and rfc8785's
# wheels. Served from here like the other static files; never from a CDN.
FAIRDEAL_PYODIDE_DIR = env.path("FAIRDEAL_PYODIDE_DIR", default=site_path("pyodide"))
FAIRDEAL_VERIFIER_WHEELS = env.path("FAIRDEAL_VERIFIER_WHEELS", default=site_path("wheels"))
# Outside production, static files are served from where they lie, with no collectstatic.
# Production serves only what `manage.py collectstatic` gathered into STATIC_ROOT, under
# names that carry a hash of their content, so they can be cached for ever.
WHITENOISE_USE_FINDERS = not PRODUCTION
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        ),
    },
}
if not PRODUCTION:
    Path(STATIC_ROOT).mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Request bodies are small JSON documents; anything larger is refused with 413.
FAIRDEAL_MAX_BODY_BYTES = env.int("FAIRDEAL_MAX_BODY_BYTES", default=16 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = FAIRDEAL_MAX_BODY_BYTES

# Per-move deadlines, in seconds: from a minute (configurable for tests) to a week.
FAIRDEAL_MIN_DEADLINE_SECONDS = env.int("FAIRDEAL_MIN_DEADLINE_SECONDS", default=60)
FAIRDEAL_MAX_DEADLINE_SECONDS = env.int("FAIRDEAL_MAX_DEADLINE_SECONDS", default=7 * 24 * 3600)
# The most reserve of time a table may give each seat beside its time a move (4 weeks).
FAIRDEAL_MAX_RESERVE_SECONDS = env.int("FAIRDEAL_MAX_RESERVE_SECONDS", default=28 * 24 * 3600)
# Holidays (docs/deadlines.md): the days a player may take in any 365, how soon a deadline
# may be due and still be saved by a holiday starting now (an hour), and the most days a
# rated table waits for a player on holiday before its deadline runs again.
FAIRDEAL_HOLIDAY_DAYS = env.int("FAIRDEAL_HOLIDAY_DAYS", default=30)
FAIRDEAL_HOLIDAY_NOTICE_SECONDS = env.int("FAIRDEAL_HOLIDAY_NOTICE_SECONDS", default=3600)
FAIRDEAL_HOLIDAY_RATED_DAYS = env.int("FAIRDEAL_HOLIDAY_RATED_DAYS", default=14)
# "Your turn" goes out this long after the turn began, if it is still the player's turn:
# somebody playing live, the table in front of them, is not mailed for every move.
FAIRDEAL_TURN_MAIL_WAIT_SECONDS = env.int("FAIRDEAL_TURN_MAIL_WAIT_SECONDS", default=120)
# The lobby: how many open tables one account may host at once, and how long a table
# may wait for players before it expires (cancelled, its seed never used).
FAIRDEAL_MAX_OPEN_TABLES = env.int("FAIRDEAL_MAX_OPEN_TABLES", default=10)
FAIRDEAL_OPEN_TABLE_SECONDS = env.int("FAIRDEAL_OPEN_TABLE_SECONDS", default=7 * 24 * 3600)
# How long an offer to play a finished table again waits for every player to accept it.
FAIRDEAL_REMATCH_SECONDS = env.int("FAIRDEAL_REMATCH_SECONDS", default=24 * 3600)
# How many games with bots one account may have going at once (bots think on our CPUs).
FAIRDEAL_MAX_BOT_TABLES = env.int("FAIRDEAL_MAX_BOT_TABLES", default=10)
# The shortest wait a host may choose before free seats are filled with bots, in seconds.
FAIRDEAL_MIN_BOT_FILL_SECONDS = env.int("FAIRDEAL_MIN_BOT_FILL_SECONDS", default=60)
# Ratings and leaderboards (docs/ratings.md). A player's rating at a game is provisional
# until they have this many rated games of it and its uncertainty (sigma, widened for
# time away) is below this; a leaderboard lists the players past that who finished a
# rated game of it in the last so many days.
FAIRDEAL_RATING_MIN_GAMES = env.int("FAIRDEAL_RATING_MIN_GAMES", default=10)
FAIRDEAL_RATING_MAX_SIGMA = env.float("FAIRDEAL_RATING_MAX_SIGMA", default=6.5)
FAIRDEAL_LEADERBOARD_ACTIVE_DAYS = env.int("FAIRDEAL_LEADERBOARD_ACTIVE_DAYS", default=90)
# ...and until they have met this many distinct established opponents (at most
# leaderboard.models.OPPONENTS_KEPT, 20): throwaway accounts never make a rating.
FAIRDEAL_RATING_MIN_OPPONENTS = env.int("FAIRDEAL_RATING_MIN_OPPONENTS", default=5)
# An account plays rated once its address is verified and it is this many days old
# (accounts/rated_play.py; docs/ratings.md says why).
FAIRDEAL_RATED_MIN_ACCOUNT_DAYS = env.int("FAIRDEAL_RATED_MIN_ACCOUNT_DAYS", default=3)
# `manage.py rating_pairs_report` shows pairs of players with at least this many rated
# tables together, one of whom finished ahead of the other at this share of them or more.
FAIRDEAL_RATING_PAIR_MIN_TABLES = env.int("FAIRDEAL_RATING_PAIR_MIN_TABLES", default=10)
FAIRDEAL_RATING_PAIR_SHARE = env.float("FAIRDEAL_RATING_PAIR_SHARE", default=0.9)
# How often beat reckons the leaderboards, in seconds: their order, counts and ranks are
# as of then (leaderboard.boards; docs/ratings.md). A board's reckoning sorts its listed
# players once, off the request path, so that a page costs the same at any size.
FAIRDEAL_BOARD_SECONDS = env.float("FAIRDEAL_BOARD_SECONDS", default=60.0)
# How often Celery beat sweeps for passed deadlines, in seconds: while the sweeps keep up,
# a timeout lands within about this long of its deadline (docs/deadlines.md).
FAIRDEAL_SWEEP_SECONDS = env.float("FAIRDEAL_SWEEP_SECONDS", default=0.5)
# How many sweeps beat's one may become when many tables are late: itself and helpers on
# other workers, each settling other batches (games.tasks.sweep_deadlines).
FAIRDEAL_SWEEP_FANOUT = env.int("FAIRDEAL_SWEEP_FANOUT", default=4)
# A drain of the bots' lane leases this many tables' turns at a time (one bot's action
# each, the accounts taking turns: games.outbox.fair), and hands what is left to another
# task after the batch that runs past this many seconds.
FAIRDEAL_BOT_BATCH = env.int("FAIRDEAL_BOT_BATCH", default=4)
FAIRDEAL_BOT_SLICE_SECONDS = env.float("FAIRDEAL_BOT_SLICE_SECONDS", default=0.5)
# How often an open table page asks whether the table has moved (ms): docs/pages.md.
FAIRDEAL_POLL_MS = env.int("FAIRDEAL_POLL_MS", default=2000)
# How long the table page shows each of several moves that arrived at once (the bots'
# answers), one after the other, before the next.
FAIRDEAL_REVEAL_MS = env.int("FAIRDEAL_REVEAL_MS", default=700)
# How often beat sends the turns' mail that is due ("your turn" after the wait, the
# reminders a day and an hour before a deadline, the daily digests): at worst this long
# after its moment, well inside the shortest window (the two minutes' wait before "your
# turn"). Its queries read the owing seats of the playing tables (docs/deadlines.md),
# some 20 ms of PostgreSQL's CPU with 10,000 tables playing: not something to run twice
# a second.
FAIRDEAL_REMINDER_SECONDS = env.float("FAIRDEAL_REMINDER_SECONDS", default=5.0)
# How often beat sequences the commitment log's new entries and signs a checkpoint.
FAIRDEAL_LOG_SECONDS = env.float("FAIRDEAL_LOG_SECONDS", default=2.0)
# The health endpoint reports beat dead or silent when the last completed sweep is
# older than this many intervals (and never less than ten seconds).
FAIRDEAL_HEALTH_SWEEP_INTERVALS = env.float("FAIRDEAL_HEALTH_SWEEP_INTERVALS", default=4.0)
# Beat's intervals, in every environment: one of nothing (or less) would have beat send its
# task without pause, flooding the broker, rather than fail here.
if not_intervals := [
    name
    for name, seconds in (
        ("FAIRDEAL_SWEEP_SECONDS", FAIRDEAL_SWEEP_SECONDS),
        ("FAIRDEAL_REMINDER_SECONDS", FAIRDEAL_REMINDER_SECONDS),
        ("FAIRDEAL_LOG_SECONDS", FAIRDEAL_LOG_SECONDS),
        ("FAIRDEAL_BOARD_SECONDS", FAIRDEAL_BOARD_SECONDS),
    )
    if not seconds > 0
]:
    raise ImproperlyConfigured(f"{', '.join(not_intervals)}: beat's intervals are more than 0 s")
# Every tick expires, so that a worker that was down (or far behind) finds the last half
# minute's ticks waiting, not every tick beat sent meanwhile (six a second): each does what
# is due when it runs, so the next tick does what an expired one would have done. Never
# sooner than half a minute (or the entry's interval, where longer): a tick that waited
# a moment behind other work, or reached a worker whose clock is a little ahead of beat's,
# still runs; dropping every sweep that was late by an interval is how deadlines once went
# unenforced. On RabbitMQ the expiry is a message TTL: the broker drops them; on Redis the
# worker discards each when it takes it, unrun.
PERIODIC_EXPIRES_SECONDS = 30.0


def periodic(task: str, seconds: float) -> dict[str, object]:
    """A beat entry: ``task`` every ``seconds``, expiring as said above."""
    return {
        "task": task,
        "schedule": seconds,
        "options": {"expires": max(seconds, PERIODIC_EXPIRES_SECONDS)},
    }


CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": periodic("games.sweep_deadlines", FAIRDEAL_SWEEP_SECONDS),
    "mail-turns": periodic("games.mail_turns", FAIRDEAL_REMINDER_SECONDS),
    # Work commits left in the outbox: mail and ratings, in batches (only a bot's move
    # wakes a worker at its commit), and anything whose wake-up was lost (a broker outage).
    "drain-outbox": periodic("games.drain_outbox", FAIRDEAL_SWEEP_SECONDS),
    # The bots' moves whose wake-up was lost, on the bots' queue.
    "drain-bots": periodic("games.drain_bots", FAIRDEAL_SWEEP_SECONDS),
    "purge-outbox": periodic("games.purge_outbox", 3600.0),
    "expire-open-tables": periodic("games.expire_open_tables", 60.0),
    # Open tables whose host's wait has passed: bots in the free seats, and the deal.
    "fill-with-bots": periodic("games.fill_with_bots", FAIRDEAL_SWEEP_SECONDS),
    # The commitment log's entries, written with their events, put in its tree and a
    # checkpoint signed (fairplay.commitments.sequence): a record asked for sooner waits
    # for nothing, it sequences its own table's.
    "sequence-log": periodic("fairplay.sequence_log", FAIRDEAL_LOG_SECONDS),
    # The leaderboards, each game's sorted once (leaderboard.boards.reckon).
    "reckon-boards": periodic("leaderboard.reckon_boards", FAIRDEAL_BOARD_SECONDS),
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.StrictTokenAuthentication",
        "accounts.authentication.CsrfSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["config.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.StrictJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
    "DEFAULT_METADATA_CLASS": "config.metadata.JSONMetadata",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_RATES": {"accounts": env.str("FAIRDEAL_ACCOUNTS_RATE", default="60/min")},
}

# -- Accounts: the shared cache, throttles, usernames and e-mail verification -----------
# Throttles count in the cache (config/throttling.py), so every web process must share
# it: Redis in production, which refuses anything else. The one-command run has a single
# web process, and local memory counts atomically within it (the database cache would
# not help: its incr is a read and then a write, not atomic across processes either).
CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://")}
if FAIRDEAL_ENV == "test":
    # pytest-xdist's workers share one Redis database: each counts under its own prefix.
    CACHES["default"]["KEY_PREFIX"] = "test-" + env.str("PYTEST_XDIST_WORKER", default="main")
    # Every login and sign-up the suite makes hashes a password: Django's cheapest hasher
    # in the tests alone (Django's "Speeding up the tests"), its PBKDF2 (0.4 s a hash here)
    # everywhere else, the end-to-end tests' production processes included.
    PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]
# How many proxies stand in front of us, each appending to X-Forwarded-For. With 0 the
# client is REMOTE_ADDR and the header is ignored; a forged header never counts.
FAIRDEAL_TRUSTED_PROXIES = env.int("FAIRDEAL_TRUSTED_PROXIES", default=0)
REST_FRAMEWORK["NUM_PROXIES"] = FAIRDEAL_TRUSTED_PROXIES
# Logging in (accounts/throttling.py says why these numbers). After this many failures of
# one address at one account, each further attempt from it locks that address out of that
# account for 2, 4, 8... seconds, never longer than the cap; its failures are forgotten
# after a day without one, or at once on its success. An address may fail this often,
# whatever the accounts; an account this often, whatever the addresses, and then only an
# address it logged in from (known) or one with fewer than FRESH_TRIES failures at it
# (fresh, at FRESH_RATE in all) may try until the hour ends.
FAIRDEAL_LOGIN_FREE_FAILURES = env.int("FAIRDEAL_LOGIN_FREE_FAILURES", default=5)
FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS = env.int("FAIRDEAL_LOGIN_FIRST_LOCK_SECONDS", default=2)
FAIRDEAL_LOGIN_MAX_LOCK_SECONDS = env.int("FAIRDEAL_LOGIN_MAX_LOCK_SECONDS", default=15 * 60)
FAIRDEAL_LOGIN_FAILURE_MEMORY_SECONDS = 24 * 3600
FAIRDEAL_LOGIN_ADDRESS_RATE = env.str("FAIRDEAL_LOGIN_ADDRESS_RATE", default="30/hour")
FAIRDEAL_LOGIN_ACCOUNT_RATE = env.str("FAIRDEAL_LOGIN_ACCOUNT_RATE", default="10/hour")
FAIRDEAL_LOGIN_FRESH_RATE = env.str("FAIRDEAL_LOGIN_FRESH_RATE", default="10/hour")
FAIRDEAL_LOGIN_FRESH_TRIES = 2
# Each rate as DRF spells it (config.throttling.parse_rate): a count above 0, a slash and a
# period whose first letter is s, m, h or d ("60/min", "30/hour"). Checked here, so that a
# misspelt one stops the process at its start, not as a 500 at the first request it counts.
_RATES = {
    "FAIRDEAL_ACCOUNTS_RATE": REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["accounts"],
    "FAIRDEAL_LOGIN_ADDRESS_RATE": FAIRDEAL_LOGIN_ADDRESS_RATE,
    "FAIRDEAL_LOGIN_ACCOUNT_RATE": FAIRDEAL_LOGIN_ACCOUNT_RATE,
    "FAIRDEAL_LOGIN_FRESH_RATE": FAIRDEAL_LOGIN_FRESH_RATE,
}
if misspelt := [
    name for name, value in _RATES.items() if not re.fullmatch(r"[1-9][0-9]*/[smhd][a-z]*", value)
]:
    raise ImproperlyConfigured(
        "; ".join(f"{name} is a count and a period, as 60/min or 30/hour" for name in misspelt)
    )
FAIRDEAL_LOGIN_KNOWN_ADDRESS_SECONDS = 30 * 24 * 3600
AUTHENTICATION_BACKENDS = ["accounts.backends.CaseInsensitiveModelBackend"]
# The pages log in by session (accounts/pages.py); the API by token.
LOGIN_URL = "login-page"
LOGIN_REDIRECT_URL = "my-tables"
LOGOUT_REDIRECT_URL = "home"
# E-mail verification links work this long; a new one may be asked for this often.
FAIRDEAL_VERIFY_EMAIL_MAX_AGE = env.int("FAIRDEAL_VERIFY_EMAIL_MAX_AGE", default=3 * 24 * 3600)
FAIRDEAL_VERIFY_EMAIL_RESEND_SECONDS = 60

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
    # Swagger UI's configuration, as JavaScript (drf-spectacular passes a string as it is)
    # for its plugins. No badge from validator.swagger.io: every asset is served by
    # Fairdeal. No deep links: with them Swagger UI puts a link (the path, <a href="#/...">)
    # inside each operation's summary button, a control within a control (axe's
    # nested-interactive). No syntax highlighting: its colours are inline, too faint on
    # its dark ground, and its code boxes scroll sideways out of the keyboard's reach;
    # plain <pre> blocks wrap. Our plugins, from static/fairdeal/api-docs.js (names for a
    # request body's box and a dialog's close cross), go with Swagger UI's preset rather
    # than in `plugins`, which would take the place of drf-spectacular's own.
    "SWAGGER_UI_SETTINGS": """{
  "deepLinking": false,
  "validatorUrl": null,
  "syntaxHighlight": {"activated": false},
  "presets": [SwaggerUIBundle.presets.apis, ...window.fairdealApiDocsPlugins]
}""",
    # One name for the bots' levels, wherever a schema lists them.
    "ENUM_NAME_OVERRIDES": {"BotLevel": "games.models.BotLevel"},
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Every refusal an operation can give, as the one Error body (config/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.schema.declare_every_answer",
    ],
    # A table's key, as <row:...> takes it: what a bigint holds (games.converters.LARGEST_KEY).
    "PATH_CONVERTER_OVERRIDES": {
        "row": {"type": "integer", "format": "int64", "minimum": 1, "maximum": 2**63 - 1}
    },
}

# Logs (docs/deploy.md, "Logs"): one line an event on standard error, "time level logger
# message" (config/logs.py), from every process: gunicorn's own lines and its access log
# (config/gunicorn_conf.py) and Celery's (config/celery.py) come through this too. Beat's
# idle ticks are at FAIRDEAL_PERIODIC_LOG_LEVEL, so an idle site writes little at INFO.
FAIRDEAL_PERIODIC_LOG_LEVEL = env.str("FAIRDEAL_PERIODIC_LOG_LEVEL", default="DEBUG")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"()": "config.logs.UTCFormatter"}},
    "filters": {
        "periodic_ticks": {
            "()": "config.logs.PeriodicTicks",
            "tasks": sorted({entry["task"] for entry in CELERY_BEAT_SCHEDULE.values()}),
            "level": FAIRDEAL_PERIODIC_LOG_LEVEL,
        },
        "one_line": {"()": "config.logs.OneLine"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "line",
            "filters": ["periodic_ticks"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # A request for a host not in ALLOWED_HOSTS (a scanner asking by address): one line.
        "django.security.DisallowedHost": {"filters": ["one_line"]},
    },
}
