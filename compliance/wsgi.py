from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
application = get_wsgi_application()

# After the app registry is ready: loads models, not at the top.
from agent.retrieval.warmup import warm_up  # noqa: E402

warm_up()
