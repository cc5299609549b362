"""Lagbevakning: change notices for the workspaces a statute's amendment, repeal or arrival concerns, their
impact assessments, the Lagändringar pages and the e-mail digests.

services (notices_create_for_versions, notice_answer), selectors, views/urls (/ws/<slug>/lagandringar/),
digests (celery beat), tasks; the REST API is register/notices/api.py.
"""

from __future__ import annotations
