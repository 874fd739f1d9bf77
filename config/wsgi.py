"""The WSGI application gunicorn serves (``config.wsgi``), made ready before the first request.

Each web worker imports everything a request will need here, as it starts (the
URLconf brings in every view, serializer and the rules), and then tells the
garbage collector to leave those objects be (``gc.freeze``): they live as long as
the process. A full collection in a worker otherwise walked all of them, 137 ms
of one request's time (``docs/speed.md``); frozen, about 1.5 ms. Young objects
are collected as before.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018 (imports the views now, not at the first request)
gc.freeze()
