"""Production settings refuse every development default and anything unsafe; development needs none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ROOT = Path(__file__).resolve().parents[1]
PKCS8 = (serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8)
# A readable Ed25519 private key (a test's own: it signs nothing real).
SIGNING_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32))).private_bytes(
    *PKCS8, serialization.NoEncryption()
)
GOOD_PRODUCTION = {
    "FAIRDEAL_ENV": "production",
    "SECRET_KEY": "k3Jp9vQz-Tn2Wm8Lr5Xc7Hb4Yd6Fg1Sa0Ue_Oi+Pq=Zx.Ny!Mw#Rt",
    "DEBUG": "false",
    "DATABASE_URL": "postgres://fairdeal@db.example/fairdeal",
    "ALLOWED_HOSTS": "fairdeal.example",
    "CELERY_BROKER_URL": "redis://cache.example:6379/0",
    "FAIRDEAL_SIGNING_KEY": SIGNING_KEY.decode(),
    "EMAIL_URL": "smtp+tls://fairdeal:password@mail.example:587",
    "FAIRDEAL_BASE_URL": "https://fairdeal.example",
    "CACHE_URL": "redis://cache.example:6379/1",
    "DEFAULT_FROM_EMAIL": "Fairdeal <fairdeal@fairdeal.example>",
}


def load_settings(
    environment: dict[str, str], show: str = "s.FAIRDEAL_ENV, s.DEBUG"
) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh interpreter with exactly this environment; print ``show``."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), **environment}
    return subprocess.run(
        [sys.executable, "-c", f"import config.settings as s; print({show})"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_complete_production_settings_are_accepted() -> None:
    done = load_settings(GOOD_PRODUCTION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "production False"


def test_only_the_tests_hash_passwords_the_cheap_way() -> None:
    """Production and development keep Django's password hashers (PBKDF2 first)."""
    show = "getattr(s, 'PASSWORD_HASHERS', 'django')"
    for environment in (GOOD_PRODUCTION, {"FAIRDEAL_ENV": "development"}):
        done = load_settings(environment, show)
        assert (done.returncode, done.stdout.strip()) == (0, "django"), done.stderr
    done = load_settings({"FAIRDEAL_ENV": "test"}, show)
    assert "MD5PasswordHasher" in done.stdout, done.stderr


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"SECRET_KEY": None}, "SECRET_KEY"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY"),
        # Django's deploy check: 50 characters, 5 of them different, no "django-insecure-".
        ({"SECRET_KEY": "x" * 32}, "SECRET_KEY"),
        ({"SECRET_KEY": "x" * 60}, "SECRET_KEY"),
        ({"SECRET_KEY": "abcd" * 20}, "SECRET_KEY"),
        ({"SECRET_KEY": "django-insecure-k3Jp9vQz-Tn2Wm8Lr5Xc7Hb4Yd6Fg1Sa0Ue_Oi"}, "SECRET_KEY"),
        ({"DEBUG": "true"}, "DEBUG"),
        # The tests' inline tasks: the web process would run the workers' work.
        ({"CELERY_TASK_ALWAYS_EAGER": "true"}, "CELERY_TASK_ALWAYS_EAGER"),
        # The commitment log's origin names its key: no spaces, no "+".
        ({"FAIRDEAL_LOG_ORIGIN": "Fairdeal commitments"}, "FAIRDEAL_LOG_ORIGIN"),
        ({"FAIRDEAL_LOG_ORIGIN": "fairdeal.example/log+2"}, "FAIRDEAL_LOG_ORIGIN"),
        ({"FAIRDEAL_LOG_ORIGIN": ""}, "FAIRDEAL_LOG_ORIGIN"),
        ({"DATABASE_URL": None}, "DATABASE_URL"),
        ({"DATABASE_URL": "sqlite:///tmp/x.sqlite3"}, "DATABASE_URL"),
        ({"ALLOWED_HOSTS": None}, "ALLOWED_HOSTS"),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS"),
        ({"ALLOWED_HOSTS": "*"}, "ALLOWED_HOSTS"),
        ({"ALLOWED_HOSTS": "fairdeal.example,*"}, "ALLOWED_HOSTS"),
        ({"ALLOWED_HOSTS": ".*"}, "ALLOWED_HOSTS"),
        ({"EMAIL_URL": None}, "EMAIL_URL"),  # the console backend, the default
        ({"EMAIL_URL": "consolemail://"}, "EMAIL_URL"),
        ({"EMAIL_URL": "memorymail://"}, "EMAIL_URL"),
        ({"EMAIL_URL": "dummymail://"}, "EMAIL_URL"),
        (
            {"EMAIL_URL": None, "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"},
            "EMAIL_URL",
        ),
        ({"FAIRDEAL_BASE_URL": None}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "http://fairdeal.example"}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "https://localhost"}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "https://play.localhost:8443"}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "https://127.0.0.1:8000"}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "https://127.3.4.5"}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "https://[::1]:8000"}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "https://0.0.0.0"}, "FAIRDEAL_BASE_URL"),
        ({"FAIRDEAL_BASE_URL": "fairdeal.example"}, "FAIRDEAL_BASE_URL"),
        ({"CELERY_BROKER_URL": None}, "CELERY_BROKER_URL"),
        ({"CELERY_BROKER_URL": "memory://"}, "CELERY_BROKER_URL"),
        # No publisher confirms there (issue 35, item 3: the brokers set and tested).
        ({"CELERY_BROKER_URL": "librabbitmq://mq.example//"}, "Redis (redis://, rediss://)"),
        ({"CELERY_BROKER_URL": "sqs://"}, "Redis (redis://, rediss://)"),
        # Clearing the cache would drop the queued tasks.
        ({"CELERY_BROKER_URL": "redis://cache.example:6379/1"}, "different Redis databases"),
        ({"CACHE_URL": "redis://cache.example/"}, "different Redis databases"),
        # Throttles count in the cache: every web process must share it.
        ({"CACHE_URL": None}, "CACHE_URL"),
        ({"CACHE_URL": "locmemcache://"}, "CACHE_URL"),
        ({"CACHE_URL": "dbcache://fairdeal_cache"}, "CACHE_URL"),
        ({"FAIRDEAL_SIGNING_KEY": None}, "FAIRDEAL_SIGNING_KEY"),
        # Players' mail servers refuse or bin mail from localhost.
        ({"DEFAULT_FROM_EMAIL": None}, "DEFAULT_FROM_EMAIL"),
        ({"DEFAULT_FROM_EMAIL": "fairdeal@localhost"}, "DEFAULT_FROM_EMAIL"),
        ({"DEFAULT_FROM_EMAIL": "Fairdeal <fairdeal@127.0.0.1>"}, "DEFAULT_FROM_EMAIL"),
        ({"DEFAULT_FROM_EMAIL": "fairdeal"}, "DEFAULT_FROM_EMAIL"),
        # Three slashes are a path relative to wherever the process started.
        ({"EMAIL_URL": "filemail:///var/spool/fairdeal"}, "mail file path must be absolute"),
        (
            {
                "EMAIL_URL": None,
                "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                "EMAIL_FILE_PATH": "spool",
            },
            "mail file path must be absolute",
        ),
    ],
)
def test_production_refuses_a_development_default(change: dict, complaint: str) -> None:
    environment = dict(GOOD_PRODUCTION)
    for name, value in change.items():
        if value is None:
            environment.pop(name)
        else:
            environment[name] = value
    done = load_settings(environment)
    assert done.returncode != 0
    assert "production settings refused" in done.stderr
    assert complaint in done.stderr


@pytest.mark.parametrize(
    "change",
    [
        {"ALLOWED_HOSTS": "fairdeal.example,.fairdeal.example"},  # and every subdomain
        {"CELERY_TASK_ALWAYS_EAGER": "false"},
        {"FAIRDEAL_LOG_ORIGIN": "fairdeal.example/cards/commitments"},
        {"EMAIL_URL": "smtps://fairdeal:password@mail.example:465"},
        # Explicit choices that keep every message: a spool another system delivers from.
        {"EMAIL_URL": "filemail:////var/spool/fairdeal"},
        {"EMAIL_URL": None, "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend"},
        {"FAIRDEAL_BASE_URL": "https://play.fairdeal.example:8443/cards"},
        {"FAIRDEAL_BASE_URL": "https://203.0.113.7"},
        {"CELERY_BROKER_URL": "amqp://fairdeal:password@mq.example:5672/fairdeal"},
        {"CELERY_BROKER_URL": "amqps://fairdeal:password@mq.example:5671/fairdeal"},
        {"CELERY_BROKER_URL": "redis://cache.example:6379/0", "CACHE_URL": "redis://other:6379/0"},
    ],
)
def test_production_accepts_a_safe_choice(change: dict) -> None:
    environment = dict(GOOD_PRODUCTION)
    for name, value in change.items():
        if value is None:
            environment.pop(name)
        else:
            environment[name] = value
    done = load_settings(environment)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "production False"


@pytest.mark.parametrize("url", ["amqp://mq.example//", "amqps://mq.example/fairdeal"])
def test_on_rabbitmq_our_queues_are_quorum_queues_and_every_publish_is_confirmed(url: str) -> None:
    """Issue 35, item 3: the broker's settings follow the URL's scheme."""
    show = "(s.CELERY_TASK_QUEUES, s.CELERY_BROKER_TRANSPORT_OPTIONS, s.CELERY_TASK_ACKS_LATE)"
    done = load_settings({**GOOD_PRODUCTION, "CELERY_BROKER_URL": url}, show=show)
    assert done.returncode == 0, done.stderr
    quorum = {"queue_arguments": {"x-queue-type": "quorum"}}
    expected = {"celery": quorum, "periodic": quorum, "bots": quorum}
    assert done.stdout.strip() == repr((expected, {"confirm_publish": True}, True))
    # Redis keeps its plain queues and socket timeouts (no confirm_publish: not a Redis option).
    done = load_settings(GOOD_PRODUCTION, show=show)
    assert done.returncode == 0, done.stderr
    assert "quorum" not in done.stdout and "confirm_publish" not in done.stdout


def without_signing_key() -> dict[str, str]:
    environment = dict(GOOD_PRODUCTION)
    environment.pop("FAIRDEAL_SIGNING_KEY")
    return environment


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (b"garbage, not a key\n", "is not a readable Ed25519 private key"),
        (
            b"-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n",
            "is not a readable Ed25519 private key",
        ),
        (
            rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
                *PKCS8, serialization.NoEncryption()
            ),
            "must be an Ed25519 private key",
        ),
        (
            Ed25519PrivateKey.generate().private_bytes(
                *PKCS8, serialization.BestAvailableEncryption(b"a passphrase")
            ),
            "is not a readable Ed25519 private key",
        ),
        (b"", "is empty"),
        (b"  \n", "is empty"),
        (None, "names no file"),
    ],
    ids=["garbage", "pem-armour-around-nothing", "rsa", "encrypted", "empty", "blank", "missing"],
)
def test_production_refuses_a_signing_key_file_that_is_not_a_readable_ed25519_key(
    tmp_path: Path, content: bytes | None, complaint: str
) -> None:
    path = tmp_path / "signing.pem"
    if content is not None:
        path.write_bytes(content)
    done = load_settings({**without_signing_key(), "FAIRDEAL_SIGNING_KEY_FILE": str(path)})
    assert done.returncode != 0
    assert "production settings refused" in done.stderr
    assert f"FAIRDEAL_SIGNING_KEY_FILE ({path})" in done.stderr
    assert complaint in done.stderr


def test_production_refuses_signing_key_text_that_is_not_a_key_and_a_folder_for_a_file(
    tmp_path: Path,
) -> None:
    done = load_settings({**GOOD_PRODUCTION, "FAIRDEAL_SIGNING_KEY": "not a key"})
    assert "FAIRDEAL_SIGNING_KEY is not a readable Ed25519 private key" in done.stderr
    done = load_settings({**without_signing_key(), "FAIRDEAL_SIGNING_KEY_FILE": str(tmp_path)})
    assert done.returncode != 0 and "cannot be read" in done.stderr


def test_production_takes_a_readable_signing_key_file(tmp_path: Path) -> None:
    path = tmp_path / "signing.pem"
    path.write_bytes(SIGNING_KEY)
    done = load_settings({**without_signing_key(), "FAIRDEAL_SIGNING_KEY_FILE": str(path)})
    assert done.returncode == 0, done.stderr


HTTPS = (
    "s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS,"
    " s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_PROXY_SSL_HEADER"
)


def test_production_redirects_to_https_and_sends_hsts_by_default() -> None:
    done = load_settings(GOOD_PRODUCTION, show=HTTPS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"True {365 * 24 * 3600} True None"


def test_production_does_not_trust_x_forwarded_proto_unless_told() -> None:
    # Anyone can send X-Forwarded-Proto: https. Only a proxy that sets it on every request
    # (and that is the only way in) makes it worth believing.
    done = load_settings({**GOOD_PRODUCTION, "FAIRDEAL_TRUST_FORWARDED_PROTO": "false"}, show=HTTPS)
    assert done.stdout.strip().endswith("None"), done.stderr
    done = load_settings({**GOOD_PRODUCTION, "FAIRDEAL_TRUST_FORWARDED_PROTO": "true"}, show=HTTPS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("('HTTP_X_FORWARDED_PROTO', 'https')")


def test_a_proxy_that_does_https_itself_may_turn_the_redirect_and_hsts_off() -> None:
    done = load_settings(
        {
            **GOOD_PRODUCTION,
            "FAIRDEAL_SSL_REDIRECT": "false",
            "FAIRDEAL_HSTS_SECONDS": "0",
            "FAIRDEAL_HSTS_INCLUDE_SUBDOMAINS": "false",
        },
        show=HTTPS,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False 0 False None"


CONNECTIONS = "s.DATABASES['default']['CONN_MAX_AGE'], s.DATABASES['default']['CONN_HEALTH_CHECKS']"


def test_production_keeps_database_connections_open_and_checks_them() -> None:
    done = load_settings(GOOD_PRODUCTION, show=CONNECTIONS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "600 True"
    done = load_settings({**GOOD_PRODUCTION, "CONN_MAX_AGE": "0"}, show=CONNECTIONS)
    assert done.stdout.strip() == "0 True", done.stderr


def test_development_opens_a_connection_per_request() -> None:
    done = load_settings({}, show=CONNECTIONS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0 True"


def test_development_has_neither_the_redirect_nor_hsts() -> None:
    done = load_settings({}, show=HTTPS)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False 0 False None"


def test_development_starts_with_nothing_set() -> None:
    done = load_settings({})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "development True"


CONTENDER = """
import os, sys
import django
django.setup()
from django.db import connection, transaction
with connection.cursor() as c:
    c.execute("CREATE TABLE IF NOT EXISTS tally (n integer)")
for _ in range(300):
    with transaction.atomic():  # reads, then writes: the shape of every move and every sweep
        with connection.cursor() as c:
            c.execute("SELECT count(*) FROM tally")
            c.fetchone()
            c.execute("INSERT INTO tally VALUES (1)")
print("ok")
"""


def test_the_development_database_takes_two_writers_at_once(tmp_path: Path) -> None:
    # The one-command run writes from the web process and the worker at once; on SQLite's
    # defaults a transaction that reads and then writes fails with "database is locked".
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'contended.sqlite3'}",
    }
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", CONTENDER],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err[-2000:]
        assert out.strip() == "ok"


REMINDERS = (
    's.CELERY_BEAT_SCHEDULE["mail-turns"]["schedule"], s.FAIRDEAL_REMINDER_SECONDS, '
    "s.FAIRDEAL_SWEEP_SECONDS, s.FAIRDEAL_TURN_MAIL_WAIT_SECONDS"
)


def test_production_sends_reminders_on_their_own_interval_well_inside_the_shortest_window() -> None:
    done = load_settings(GOOD_PRODUCTION, show=REMINDERS)
    assert done.returncode == 0, done.stderr
    scheduled, interval, sweep, shortest_window = map(float, done.stdout.split())
    assert scheduled == interval
    # Seldom beside the sweep (its query reads every table in its window), and still at
    # most a third of the shortest window late: the wait before "your turn" (the
    # reminders come a day and an hour before a deadline).
    assert interval >= 10 * sweep
    assert interval <= shortest_window / 3
    done = load_settings({**GOOD_PRODUCTION, "FAIRDEAL_REMINDER_SECONDS": "2"}, show=REMINDERS)
    assert done.stdout.split()[:2] == ["2.0", "2.0"], done.stderr


@pytest.mark.parametrize(
    "change",
    [
        {"FAIRDEAL_SWEEP_SECONDS": "0"},
        {"FAIRDEAL_BOARD_SECONDS": "-60", "FAIRDEAL_LOG_SECONDS": "0"},
    ],
)
def test_a_beat_interval_of_nothing_stops_every_environment(change: dict[str, str]) -> None:
    """Beat would send the task without pause, flooding the broker."""
    for environment in ({}, GOOD_PRODUCTION):
        done = load_settings({**environment, **change})
        assert done.returncode != 0
        assert all(name in done.stderr for name in change), done.stderr
        assert "beat's intervals are more than 0 s" in done.stderr


@pytest.mark.parametrize(
    "name",
    [
        "FAIRDEAL_ACCOUNTS_RATE",
        "FAIRDEAL_LOGIN_ADDRESS_RATE",
        "FAIRDEAL_LOGIN_ACCOUNT_RATE",
        "FAIRDEAL_LOGIN_FRESH_RATE",
    ],
)
@pytest.mark.parametrize("value", ["60 per minute", "60/", "0/min", "60/week", "x/hour", "60/min "])
def test_a_misspelt_rate_stops_the_process_at_its_start(name: str, value: str) -> None:
    """Not a 500 at the first request it would count (it was read only there)."""
    for environment in ({}, GOOD_PRODUCTION):
        done = load_settings({**environment, name: value})
        assert done.returncode != 0
        assert f"{name} is a count and a period, as 60/min or 30/hour" in done.stderr


def test_a_rate_spelt_as_drf_spells_it_is_taken() -> None:
    done = load_settings(
        {
            **GOOD_PRODUCTION,
            "FAIRDEAL_ACCOUNTS_RATE": "5/second",
            "FAIRDEAL_LOGIN_FRESH_RATE": "3/d",
        },
        show="s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'], s.FAIRDEAL_LOGIN_FRESH_RATE",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'accounts': '5/second'} 3/d"
