"""Moving the register in and out: exports (Excel, PDF, CSV) of the register and closed reviews, and the import
of another service's list (preview, then confirm)."""

from __future__ import annotations
