"""The path converter of a row's key in the URLs (``<row:table_id>``), registered on import.

Django's ``int`` converter takes any run of digits, and a key of 2**63 or more
reached the database, which cannot hold it in a ``bigint``: a 500 instead of a
404. ``row`` takes the keys a row can have; a larger number matches no route,
so the answer is the site's 404 (JSON under ``/api/``), the same as for a key
that names no row.
"""

from __future__ import annotations

from django.urls import register_converter

# The largest key PostgreSQL's bigint holds.
LARGEST_KEY = 2**63 - 1


class RowKey:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        key = int(value)
        if key > LARGEST_KEY:
            raise ValueError(f"{value} is larger than any row's key")  # no match: a 404
        return key

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(RowKey, "row")
