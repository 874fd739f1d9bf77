"""Token authentication that refuses malformed keys before asking the database."""

from __future__ import annotations

import re
from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

_KEY = re.compile(r"[0-9a-f]{40}")


class StrictTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        if not _KEY.fullmatch(key):
            raise AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(key)
