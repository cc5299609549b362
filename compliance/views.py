"""Workspace pages. Function-based, thin: selectors read, services write."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from .selectors import workspace_get_for_user, workspace_list_for_user


@login_required
def home(request):
    workspaces = list(workspace_list_for_user(request.user))
    if len(workspaces) == 1:
        return redirect("workspace", slug=workspaces[0].slug)
    return render(request, "compliance/home.html", {"workspaces": workspaces})


@login_required
def workspace(request, slug: str):
    ws, membership = workspace_get_for_user(request.user, slug)
    return render(request, "compliance/workspace.html", {"workspace": ws, "membership": membership})
