"""Server-rendered pages."""

from __future__ import annotations

from typing import Any

from django.views.generic import TemplateView

from games.rules import RULESETS


class HomeView(TemplateView):
    template_name = "home.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["games"] = [ruleset.describe() for ruleset in RULESETS.values()]
        return context
