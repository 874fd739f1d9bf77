"""The embedded broker of the one-command run: kombu's filesystem transport, made safe.

kombu writes each message straight into the queue folder, so a worker can take
a file that is still empty: it fails to decode it, the message is lost, and
the worker's consumer dies (seen in ``bench/broker.py``: a backlog of 100
tasks stopped the worker, and with it every deadline). Here a message is
written under a name no consumer looks at and renamed into place when whole;
a rename is atomic, so a consumer sees a whole message or none.

``config.celery`` puts this transport behind the ``filesystem://`` URL.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        # kombu's own name, so its consumers order and find the message as before.
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        folder = self.data_folder_out
        # A leading dot: kombu's consumers match ``<stamp>.<queue>.msg`` and skip this.
        partial = os.path.join(folder, f".{name}.part")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(folder, name))
        except OSError as error:
            raise filesystem.ChannelError(f"cannot add a message to {folder}") from error


class Transport(filesystem.Transport):
    Channel = Channel
