"""Events read on their own, and matched with the calls they report."""

import pytest

from analysis.script.calls import COMMAND, PATCH, TOOL, ToolCall
from analysis.script.patch import PatchFile
from analysis.session.events import ChangedFile, pick_call, read_event, same_path


def test_exec_command_end():
    event = read_event(
        {
            "type": "exec_command_end",
            "call_id": "call_1",
            "command": ["bash", "-lc", "ls -la"],
            "cwd": "/w",
            "exit_code": 1,
            "duration": {"secs": 1, "nanos": 216882100},
            "source": "agent",
        }
    )
    assert (
        event.type,
        event.kind,
        event.call_id,
        event.exit_code,
        event.duration,
        event.cwd,
        event.command,
        event.success,
        event.nested,
    ) == ("exec_command_end", COMMAND, "call_1", 1, 1.217, "/w", ("bash", "-lc", "ls -la"), False, False)
    assert event.summary() == "exit 1 · 1.2 s"


def test_patch_apply_end():
    event = read_event(
        {
            "type": "patch_apply_end",
            "call_id": "exec-62ae",
            "success": True,
            "changes": {
                "C:\\w\\a.md": {"type": "update", "unified_diff": "", "move_path": "C:\\w\\b.md"},
                "/w/new.py": {"type": "add", "content": "x"},
            },
        }
    )
    assert (event.kind, event.success, event.nested) == (PATCH, True, True)
    assert event.files == (ChangedFile("C:\\w\\a.md", "update", "C:\\w\\b.md"), ChangedFile("/w/new.py", "add"))
    assert event.summary(files=True) == "applied · update C:\\w\\a.md, add /w/new.py"


def test_mcp_web_and_items():
    mcp = read_event(
        {
            "type": "mcp_tool_call_end",
            "call_id": "c",
            "invocation": {"server": "gh", "tool": "search"},
            "duration": {"secs": 0, "nanos": 5e8},
            "result": {"Err": "boom"},
        }
    )
    assert (mcp.kind, mcp.tool, mcp.duration, mcp.success) == (TOOL, "mcp__gh__search", 0.5, False)
    web = read_event({"type": "web_search_end", "call_id": "ws_1", "query": "q", "action": {"type": "search"}})
    assert (web.type, web.tool, web.query) == ("web_search_end", "web_search", "q")
    item = read_event(
        {
            "type": "item_completed",
            "item": {
                "type": "CommandExecution",
                "id": "exec-9",
                "command": "ls",
                "status": "completed",
                "exit_code": 0,
                "duration_ms": 40,
            },
        }
    )
    assert (item.type, item.kind, item.call_id, item.command, item.exit_code, item.duration) == (
        "item_completed",
        COMMAND,
        "exec-9",
        ("ls",),
        0,
        0.04,
    )


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "item_completed", "item": {"type": "Plan", "id": "p", "text": "a plan"}},
        {"type": "token_count", "info": None},
        {"type": "agent_message", "message": "hi"},
        "not an object",
    ],
)
def test_events_that_report_no_call(payload):
    assert read_event(payload) is None


@pytest.mark.parametrize(
    "event_path, patch_path, same",
    [
        ("C:\\Users\\me\\proj\\src\\A.lua", "src/a.lua", True),  # Windows: separators and case
        ("/home/u/proj/docs/b.md", "docs/b.md", True),
        ("/home/u/proj/docs/b.md", "./docs/b.md", True),
        ("/home/u/proj/xdocs/b.md", "docs/b.md", False),
        ("/home/u/proj/A.py", "a.py", False),  # POSIX paths keep their case
    ],
)
def test_same_path(event_path, patch_path, same):
    assert same_path(event_path, patch_path) is same


def test_a_script_event_picks_the_call_its_content_names():
    def patch(path):
        return ToolCall("apply_patch", PATCH, 0, 1, files=(PatchFile("update", path),))

    calls = [
        patch("a.py"),
        ToolCall("exec_command", COMMAND, 0, 1, command="make"),
        patch("b.py"),
        ToolCall("apply_patch", PATCH, 0, 1, computed=True),
    ]
    b_event = read_event(
        {"type": "patch_apply_end", "call_id": "exec-1", "success": True, "changes": {"/w/b.py": {"type": "update"}}}
    )
    assert pick_call(b_event, calls, set()) == 2
    other = read_event(
        {"type": "patch_apply_end", "call_id": "exec-2", "success": True, "changes": {"/w/zzz.py": {"type": "update"}}}
    )
    assert pick_call(other, calls, set()) == 3  # no listed file: the computed patch, whose files are unknown
    assert pick_call(other, calls, {3}) is None
    make = read_event({"type": "exec_command_end", "call_id": "exec-3", "command": ["bash", "-lc", "make"]})
    assert pick_call(make, calls, set()) == 1
