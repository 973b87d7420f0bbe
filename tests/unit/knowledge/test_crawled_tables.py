"""Tables of a crawled page as the answer reads them: a table whose first row is data (a
row header and its value, no `<thead>`) keeps that row as data; a real header row stays
the header."""

from __future__ import annotations

import pytest

from frontdesk.engines.local.answering.units import passage_units
from frontdesk.knowledge.web.extract import extract_page

pytestmark = pytest.mark.unit

INTRO = (
    "<h1>Horario</h1><p>Nuestro horario de apertura durante todo el año, salvo festivos"
    " y el mes de agosto, es el siguiente. Te esperamos en el salón.</p>"
)


def rows(table: str) -> list[str]:
    html = (
        f"<html><head><title>Horario</title></head><body><main>{INTRO}{table}</main></body></html>"
    )
    document = extract_page("https://salon.example/horario", html.encode(), "text/html").document
    assert document is not None
    return [unit.text for unit in passage_units(document.text) if unit.kind == "row"]


def test_a_first_row_of_data_is_not_read_as_column_names() -> None:
    # Read as a header, Tuesday came out "Martes — Cerrado: 10:00 – 20:00": closed.
    table = (
        "<table><tr><th>Lunes</th><td>Cerrado</td></tr>"
        "<tr><th>Martes</th><td>10:00 – 20:00</td></tr>"
        "<tr><th>Sábado</th><td>9:00 – 14:00</td></tr></table>"
    )
    assert rows(table) == ["Lunes — Cerrado", "Martes — 10:00 – 20:00", "Sábado — 9:00 – 14:00"]


@pytest.mark.parametrize(
    "head",
    [
        "<thead><tr><th>Servicio</th><th>Precio</th></tr></thead>",
        "<tr><th>Servicio</th><th>Precio</th></tr>",
    ],
)
def test_a_real_header_row_names_the_columns(head: str) -> None:
    body = "<tr><td>Corte</td><td>18 €</td></tr><tr><td>Tinte</td><td>35 €</td></tr>"
    table = f"<table>{head}{body}</table>"
    assert rows(table) == ["Corte — Precio: 18 €", "Tinte — Precio: 35 €"]
