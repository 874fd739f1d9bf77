"""The embedded broker of the one-command run: kombu's filesystem transport, made safe.

kombu writes each message straight into the queue folder, so a worker can take
a file that is still empty: it fails to decode it, the message is lost, and
the worker's consumer dies (seen in ``bench/broker.py``: a backlog of 100
tasks stopped the worker, and with it every deadline). Here a message is
written under a name no consumer looks at and renamed into place when whole;
a rename is atomic, so a consumer sees a whole message or none.

kombu also lists and sorts the whole folder for every message it takes, so a
backlog of n messages costs n² (1,000 queued tasks went at 67 a second). Here
a consumer keeps the sorted listing of a queue and takes from it until it is
used up, and claims each message by renaming it aside in the same folder
(atomic; a message another consumer took first is skipped), rather than
moving it to the system's temporary folder, which may be another file system.

Binding a queue rewrote kombu's exchange table in place (truncate, then write),
so a producer reading it at that moment found no queue and dropped its
message: the first messages sent while a worker declared its queues were
lost. Here bindings are serialised by a lock file and the table is replaced
whole by a rename, so a reader always sees a complete table.

``config.celery`` puts this transport behind the ``filesystem://`` URL.
"""

from __future__ import annotations

import os
import uuid
from collections import deque
from queue import Empty
from time import monotonic_ns
from typing import Any

from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        # kombu's form of name (``<stamp>_<uuid>.<queue>.msg``), which consumers sort by:
        # its stamp in milliseconds left messages of one millisecond in no order, so the
        # stamp here is in nanoseconds, of a fixed width so that text order is time order.
        name = f"{monotonic_ns():020d}_{uuid.uuid4()}.{queue}.msg"
        folder = self.data_folder_out
        # A leading dot: kombu's consumers match ``<stamp>.<queue>.msg`` and skip this.
        partial = os.path.join(folder, f".{name}.part")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(folder, name))
        except OSError as error:
            raise filesystem.ChannelError(f"cannot add a message to {folder}") from error

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str, queue: str) -> None:
        table_file = self._exchange_file(exchange)
        self.control_folder.mkdir(parents=True, exist_ok=True)
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        with open(self.control_folder / f".{exchange}.lock", "a") as guard:
            filesystem.lock(guard, filesystem.LOCK_EX)
            try:
                table = self.get_table(exchange)
                if entry not in table:
                    table.insert(0, entry)
                    partial = table_file.with_name(f".{table_file.name}.{uuid.uuid4()}.part")
                    partial.write_bytes(str_to_bytes(dumps(table)))
                    os.replace(partial, table_file)
            finally:
                filesystem.unlock(guard)

    def _get(self, queue: str) -> Any:
        waiting: dict[str, deque[str]] = self.__dict__.setdefault("_waiting", {})
        names = waiting.setdefault(queue, deque())
        folder = self.data_folder_in
        if not names:
            wanted = f"{queue}.msg"
            names.extend(
                sorted(name for name in os.listdir(folder) if name.partition(".")[2] == wanted)
            )
        while names:
            path = os.path.join(folder, names.popleft())
            taken = os.path.join(folder, f".{os.path.basename(path)}.taken")
            try:
                os.rename(path, taken)
            except OSError:  # another consumer took it, or it was purged
                continue
            try:
                with open(taken, "rb") as file:
                    payload = file.read()
                os.remove(taken)
            except OSError as error:
                raise filesystem.ChannelError(f"cannot read a message from {folder}") from error
            return loads(bytes_to_str(payload))
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel
