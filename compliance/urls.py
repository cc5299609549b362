from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("logga-in/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    path("logga-ut/", auth_views.LogoutView.as_view(), name="logout"),
    path("ws/<slug:slug>/", views.workspace, name="workspace"),
    path("api/v1/", include("compliance.api.urls")),
    path("", include("agent.urls")),
    path("admin/", admin.site.urls),
]
