"""The hover of a computed patch says what it is computed from (the substitutions that do not resolve)."""

from types import SimpleNamespace

from analysis import analyze_text
from lsp_server.features.hover import HoverFeature
from tests.helpers import fixture

SERVER = SimpleNamespace(masker=lambda text: text, settings=SimpleNamespace(hover_output_lines=20))


def test_hover_of_a_computed_patch_names_its_unresolved_substitutions():
    analysis = analyze_text(fixture("rollout-patches.jsonl"))
    [located] = [c for c in analysis.calls if c.call.computed]
    assert (located.line, located.call.computed_expression) == (2, "${other}")
    body = HoverFeature(SERVER).call_markdown(analysis, located)
    assert "computed at run time: `${other}`\n\n- A `notes.txt`" in body
