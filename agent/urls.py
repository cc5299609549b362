from django.urls import path  # noqa: F401

# Chat pages (agent/views.py) are added here.
urlpatterns: list = []
