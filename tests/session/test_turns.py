"""Turns as Codex writes them, titled with the user's own words."""

import json

import pytest

from analysis import analyze_text
from analysis.session.prompts import user_words
from analysis.session.turns import NO_PROMPT, Turn


def rollout(*records) -> str:
    return "\n".join(json.dumps({"timestamp": "t", "type": kind, "payload": payload}) for kind, payload in records)


def message(text, role="user"):
    return "response_item", {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}


def said(text):
    return "event_msg", {"type": "user_message", "message": text}


META = ("session_meta", {"id": "s"})


@pytest.mark.parametrize(
    "text, words",
    [
        ("# Context from my IDE setup:\n\n## Active file: a.py\n\n## My request for Codex:\n Fix it\n", "Fix it"),
        ("\n# Files mentioned by the user:\n\n## a.jpg: C:/a.jpg\n\n## My request for Codex:\nWelcome!\n", "Welcome!"),
        ("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>", None),
        ("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>", None),
        ("<recommended_plugins>\nHere are plugins\n</recommended_plugins>", None),
        ("<user_instructions>u</user_instructions>\nDo the thing", "Do the thing"),
        ("<turn_aborted>\nThe user interrupted\n</turn_aborted>", None),
        ("  plain words  ", "plain words"),
        # an attached image is its placeholder, as the user saw it in their prompt (IDE extension, Windows, wild/)
        (
            "\n# Files mentioned by the user:\n\n## s.jpg: C:/s.jpg\n\n## My request for Codex:\n\n<image name=[Image #1]>\n</image>",
            "[Image #1]",
        ),
        ("what is wrong here? <image name=[Image #2]></image> and here", "what is wrong here? [Image #2] and here"),
        ("<image>\n</image>", None),
    ],
)
def test_user_words(text, words):
    assert user_words(text) == words


def test_turns_from_task_started_titled_by_the_user_message_event():
    text = rollout(
        META,
        ("event_msg", {"type": "task_started", "turn_id": "a"}),
        message("<environment_context>x</environment_context>"),
        ("turn_context", {"turn_id": "a"}),
        message("first"),
        said("first"),
        ("event_msg", {"type": "task_started", "turn_id": "b"}),
        ("turn_context", {"turn_id": "b"}),
        ("event_msg", {"type": "task_started", "turn_id": "c"}),
        ("turn_context", {"turn_id": "c"}),
        message("third, from the message alone"),
    )
    assert analyze_text(text).turns == [
        Turn(1, 5, "first", "a"),
        Turn(6, 7, NO_PROMPT, "b"),
        Turn(8, 10, "third, from the message alone", "c"),
    ]


def test_turns_from_turn_ids_without_task_started():
    text = rollout(
        META,
        ("turn_context", {"turn_id": "a"}),
        message("one"),
        ("turn_context", {"turn_id": "a"}),
        ("turn_context", {"turn_id": "b"}),
        message("two"),
    )
    assert analyze_text(text).turns == [Turn(1, 3, "one", "a"), Turn(4, 5, "two", "b")]


def test_turns_before_turn_ids_start_where_the_user_speaks():
    # 2025 rollouts: a turn_context before every model request; the user's messages open a turn
    text = rollout(
        META,
        message("<environment_context>x</environment_context>"),
        message("hi"),
        said("hi"),
        ("turn_context", {}),
        message("answer", "assistant"),
        ("turn_context", {}),
        message("again"),
        said("again"),
        ("turn_context", {}),
    )
    assert analyze_text(text).turns == [Turn(1, 6, "hi"), Turn(7, 9, "again")]
