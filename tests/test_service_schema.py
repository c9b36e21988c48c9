"""Property-based run of the service against its own OpenAPI schema (schemathesis).

For every operation: the examples of its request model, schemathesis's coverage cases and a
bounded, derandomized set of generated requests (valid and invalid by the schema). Every answer
must be free of 5xx (but the documented 503 of the time bound), have a documented status code
and content type, and match the schema the document gives for that status: the 200 answers
(each route declares its ``response_model``) and the 4xx ones (the 422 of a bad field, the
problems of ``common.ERRORS``) alike. Each operation must get at least one 2xx answer validated,
and each that takes a body at least one 4xx: a run that only ever met errors proves nothing
about the answers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

schemathesis = pytest.importorskip("schemathesis")


from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from callbreak_lab.service import Settings, create_app  # noqa: E402

# Small caps: a generated request that happens to be a valid position must not stall the run;
# each still lets the examples through (Monte Carlo: 2 samples, 3750 ms each fit in half of 15 s;
# advise: 8 layouts; a single-dummy review: 4 a decision). The time bound leaves the examples'
# answers room on a busy machine (a fresh worker's first review loads the bid model): an
# example stopped by it gets the allowed 503, and its operation may then lack a 2xx.
APP = create_app(
    Settings(
        workers=1,
        time_limit=15.0,
        monte_carlo_sample_ms=3750.0,
        default_time_budget_ms=300,
        advise_layouts_max=8,
        review_layouts_max=4,
    )
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schemathesis.check
def no_server_error_but_the_time_bound(ctx, response, case):  # type: ignore[no-untyped-def]
    """No 5xx, except the documented 503 a request gets when its work passes the time bound.

    The bound is the service's promise that no request ties up the server (a generated Monte Carlo
    request of hundreds of full-deal layouts hits it on purpose); any other 5xx fails.
    """
    if response.status_code == 503 and "time bound" in response.json().get("detail", ""):
        return True
    return not_a_server_error(ctx, response, case)


CHECKS = [
    no_server_error_but_the_time_bound,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


#: answers that come in variants by the request's options: the key telling them apart and every
#: value it must have shown in a validated 2xx answer (each variant has its own schema to meet)
VARIANTS = {
    "POST /v1/line": ("kind", {"line", "playout"}),
    "POST /v1/advise": ("unit", {"points", "tricks"}),
    "POST /v1/analyse": ("kind", {"review", "single-dummy review"}),
}


class Validated:
    """The answers of one operation that passed every check: their status codes, and the
    variants (``VARIANTS``) of the 2xx ones (``body``: a 2xx answer's JSON, else None)."""

    def __init__(self) -> None:
        self.codes: Counter[int] = Counter()
        self.variants: set[object] = set()

    def add(self, label: str, status: int, body: object) -> None:
        self.codes[status] += 1
        if label in VARIANTS and isinstance(body, dict):
            self.variants.add(body.get(VARIANTS[label][0]))


@pytest.fixture
def validated(request: pytest.FixtureRequest) -> Iterator[Validated]:
    """One operation's validated answers; once all its cases ran, at least one 2xx is required
    (a 4xx too for an operation taking a body, and every variant of ``VARIANTS``)."""
    seen = Validated()
    yield seen
    label = request.node.name.split("[", 1)[1].rstrip("]")
    codes = dict(seen.codes)
    assert any(200 <= c < 300 for c in codes), f"{label}: no 2xx answer was validated ({codes})"
    if label.startswith("POST"):
        assert any(400 <= c < 500 for c in codes), f"{label}: no 4xx answer validated ({codes})"
    if label in VARIANTS:
        key, values = VARIANTS[label]
        missing = values - seen.variants
        assert not missing, f"{label}: no 2xx answer with {key} {sorted(missing)} was validated"


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_api_conforms_to_its_schema(case, validated: Validated) -> None:  # type: ignore[no-untyped-def]
    response = case.call_and_validate(checks=CHECKS)
    ok = 200 <= response.status_code < 300  # a 2xx is JSON (content_type_conformance passed)
    validated.add(case.operation.label, response.status_code, response.json() if ok else None)
