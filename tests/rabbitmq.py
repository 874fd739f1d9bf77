"""RabbitMQ for the tests that start real workers on it (issue 35, item 3).

Each test gets a virtual host of its own, made and deleted here with
``rabbitmqctl``: its queues, exchanges and messages are apart from every other
test's, under pytest-xdist or in another checkout's run, and nothing is left
behind. RabbitMQ down is a failure, not a skip: ``.ci/run`` starts it.
"""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from kombu import Connection

SERVER = "amqp://guest:guest@127.0.0.1:5672"


def rabbitmqctl(*args: str) -> str:
    assert shutil.which("rabbitmqctl"), "rabbitmqctl is missing: apt-get install rabbitmq-server"
    done = subprocess.run(["rabbitmqctl", "-q", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"rabbitmqctl {' '.join(args)}: {done.stderr or done.stdout}"
    return done.stdout


@contextmanager
def rabbitmq_vhost() -> Iterator[str]:
    """A broker URL on a new, empty virtual host, deleted (with its queues) afterwards."""
    vhost = f"fairdeal-test-{uuid.uuid4().hex[:12]}"
    rabbitmqctl("add_vhost", vhost)
    try:
        rabbitmqctl("set_permissions", "-p", vhost, "guest", ".*", ".*", ".*")
        yield f"{SERVER}/{vhost}"
    finally:
        rabbitmqctl("delete_vhost", vhost)


def queue_types(url: str) -> dict[str, str]:
    """Each queue of the URL's virtual host, and its type (``quorum``, ``classic``)."""
    vhost = url.rsplit("/", 1)[1]
    listed = rabbitmqctl("list_queues", "-p", vhost, "--no-table-headers", "name", "type")
    return dict(line.split("\t") for line in listed.splitlines() if line.strip())


def waiting(url: str, queue: str) -> int:
    """How many messages ``queue`` holds ready (not those a consumer holds unacknowledged),
    asked of the queue itself (``rabbitmqctl list_queues`` counts a quorum queue's messages
    some seconds late)."""
    with Connection(url) as connection:
        return connection.default_channel.queue_declare(queue, passive=True).message_count
