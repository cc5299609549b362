"""Export and import routes under /ws/<slug>/laglista/ (register.transfer_views)."""

from __future__ import annotations

from django.urls import path

from . import views as transfer_views

urlpatterns = [
    path("listor/<int:register_id>/exportera/<str:fmt>/", transfer_views.register_export, name="register_export"),
    path("kontroller/<int:review_id>/exportera/<str:fmt>/", transfer_views.review_export, name="review_export"),
    path("listor/<int:register_id>/importera/", transfer_views.register_import, name="register_import"),
    path("listor/<int:register_id>/importera/bekrafta/", transfer_views.register_import_confirm,
         name="register_import_confirm"),
]
