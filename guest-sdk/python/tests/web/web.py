# file: web.py
"""`web_page`: a URL's status and text, fetched through the sandbox's HTTP grants."""

from dataclasses import dataclass, replace

import terrarium
from terrarium import attribute, http


@dataclass(kw_only=True)
class Page:
    url: str
    message: str | None = attribute(description="Sent as JSON with a POST when set; otherwise a GET.")
    status: int | None = attribute(computed=True)
    text: str | None = attribute(computed=True)


class PageData(terrarium.DataSource[Page]):
    type_name = "web_page"
    state = Page

    def read(self, config: Page) -> Page:
        if config.message is None:
            response = http.get(config.url, timeout=10)
        else:
            response = http.post(config.url, json={"message": config.message}, timeout=10)
        # A refused origin raises http.HttpDenied: Terraform shows the grant to add.
        return replace(config, status=response.status, text=response.text)


class Web(terrarium.Provider):
    data_sources = [PageData]


Provider, Behaviour = terrarium.export(Web)
