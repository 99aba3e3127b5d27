"""An event whose type is none of those ``_READ_EVENTS`` names is no turn end, no turn item and reports no call:
the line's reading skips the three readers for it (token counts, agent messages), and must lose nothing."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.session import record_analysis
from analysis.session.events import read_event
from analysis.session.turn_events import read_turn_end, read_turn_item
from analysis.session.vocabulary import EVENT_TYPES as KNOWN_EVENTS

FIELD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 200),
    st.text(max_size=6),
    st.sampled_from(["completed", "failed", "UserMessage", "CommandExecution", "x"]),
    st.just({"type": "CommandExecution", "id": "c1", "status": "completed"}),
    st.just({"type": "AgentMessage", "text": "hi"}),
    st.just(["ls"]),
)
PAYLOADS = st.dictionaries(
    st.sampled_from(
        ["turn_id", "error", "message", "item", "call_id", "command", "exit_code", "success", "num_turns", "x"]
    ),
    FIELD_VALUES,
    max_size=5,
)
TYPES = st.one_of(
    st.sampled_from(sorted(KNOWN_EVENTS)),
    st.text(max_size=12),
    st.none(),
    st.integers(),
    st.just(["error"]),
    st.just({"type": "error"}),
)


@settings(max_examples=800, deadline=None)
@given(TYPES, PAYLOADS)
def test_an_event_of_another_type_is_none_of_the_three(kind, payload):
    payload = {**payload, "type": kind}
    if type(kind) is str and kind in record_analysis._READ_EVENTS:
        return
    assert read_turn_end(payload) is None
    assert read_turn_item(payload) is None
    assert read_event(payload) is None


def test_the_types_the_readers_read_are_named():
    assert {"task_complete", "turn_complete", "error", "turn_aborted", "thread_rolled_back"} <= (
        record_analysis._READ_EVENTS
    )
    assert {"exec_command_end", "patch_apply_end", "mcp_tool_call_end", "web_search_end", "item_completed"} <= (
        record_analysis._READ_EVENTS
    )
    assert read_turn_end({"type": "turn_aborted"}) is not None
    assert read_event({"type": "exec_command_end", "call_id": "c"}) is not None
    assert "token_count" not in record_analysis._READ_EVENTS


def test_an_event_whose_type_is_a_list_reads_as_before():
    fields: dict = {}
    record_analysis._read_event({"type": ["error"]}, fields)
    assert fields == {}
