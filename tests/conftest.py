"""Shared fixtures: the local fixtures site and the anyio backend."""

from __future__ import annotations

import pytest

from tests.support.site import FIXTURES, serve_directory


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def site() -> str:
    """Base URL (``http://127.0.0.1:PORT``) of the fixtures site; ``localhost:PORT`` is a second origin."""
    with serve_directory(FIXTURES) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def other_origin(site: str) -> str:
    """The same fixtures site on ``localhost``: a different origin from :func:`site`."""
    return site.replace("127.0.0.1", "localhost")
