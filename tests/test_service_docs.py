"""``/docs`` and ``/redoc`` load nothing from another site: their scripts, style sheet and icon
are the package's own (``service/docs.py``, ``service/static/``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib import resources

import pytest
from fastapi.testclient import TestClient

from callbreak_lab.service import Settings, create_app
from callbreak_lab.service.docs import ASSETS, STATIC_PREFIX

#: the URLs an HTML page names: src and href attributes, url: '...' in Swagger UI's start script,
#: spec-url in ReDoc's element
URL = re.compile(r"""(?:src|href|url|spec-url)\s*[=:]\s*['"]([^'"]+)['"]""")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    # no lifespan (no `with`): the documentation needs no solver workers
    yield TestClient(create_app(Settings(workers=1)))


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_pages_name_only_this_service(client: TestClient, page: str) -> None:
    resp = client.get(page)
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/html")
    html = resp.text
    assert "callbreak_lab service" in html
    urls = URL.findall(html)
    assert "/openapi.json" in urls
    assert [u for u in urls if not u.startswith("/")] == [], urls
    assert "http://" not in html and "https://" not in html and "//cdn" not in html
    scripts = [u for u in urls if u.endswith(".js")]
    assert scripts and all(u.startswith(STATIC_PREFIX + "/") for u in scripts)
    for url in urls:
        if url.startswith(STATIC_PREFIX):
            assert client.get(url).status_code == 200, url


def test_the_assets_are_the_packaged_files(client: TestClient) -> None:
    static = resources.files("callbreak_lab.service").joinpath("static")
    for path, media_type in ASSETS.items():
        resp = client.get(f"{STATIC_PREFIX}/{path}")
        assert resp.status_code == 200, path
        assert resp.headers["content-type"] == media_type
        assert resp.content == static.joinpath(path).read_bytes()
        etag = resp.headers["etag"]
        again = client.get(f"{STATIC_PREFIX}/{path}", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
    for folder in ("swagger-ui", "redoc"):  # each copy carries its licence
        assert static.joinpath(folder, "LICENSE").is_file()
    assert "swagger-ui-dist" in static.joinpath("README.md").read_text()


@pytest.mark.parametrize(
    "path",
    [
        "/static/swagger-ui/LICENSE",  # in the folder, not an asset the pages load
        "/static/swagger-ui/missing.js",
        "/static/../docs.py",
        "/static/redoc/..%2Fswagger-ui%2FLICENSE",
    ],
)
def test_nothing_else_is_served_under_static(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_the_docs_pages_are_not_operations(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not [p for p in paths if p in ("/docs", "/redoc") or p.startswith(STATIC_PREFIX)]
