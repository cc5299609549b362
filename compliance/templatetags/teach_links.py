"""The statute page's "Lär assistenten ert ord" link after a provision's heading."""

from __future__ import annotations

from urllib.parse import quote

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def teach_link(teach_url: str, citation: str) -> SafeString:
    """The link to the Ordlista's form, pointed at the provision (`teach_url` ends in `enhet=`).

    A tag rather than an {% include %}: the page renders it for every § of a statute (hundreds in
    inkomstskattelagen), and an include on every § cost about half as much again as the whole page.
    """
    return format_html(' <a class="teach-link" href="{}{}#lagg-till" aria-label="Lär assistenten ert ord för {}" '
                       'data-teach-provision>Lär assistenten ert ord</a>', teach_url, quote(citation, safe=""),
                       citation)
