"""A deterministic generator of realistic Codex rollouts, for benchmarks and fuzzing.

The shape mix follows what recorded corpora show: about 40 exec scripts a
session (a long session has more turns); most ``exec_command`` arguments literal,
most of those JS object literals rather than JSON; commands mapped over
``const`` arrays; patches in strings, templates and ``const`` bindings; MCP
calls; about 0.1% of scripts that do not parse; outputs with exec_command result
blocks, some of 40 KB; user and assistant messages.

    python bench/corpus.py OUT.jsonl --size 20MB [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from pathlib import Path

WORDS = (
    "src",
    "lib",
    "tests",
    "app",
    "core",
    "util",
    "api",
    "model",
    "view",
    "server",
    "client",
    "parser",
    "config",
    "index",
    "main",
    "handler",
    "store",
    "schema",
    "docs",
    "build",
)
COMMANDS = (
    "git status --short",
    "git diff --stat",
    "ls -la {d}",
    "rg -n '{w}\\(' {d}",
    "sed -n '1,200p' {f}",
    "cat {f}",
    "pytest -q {d}",
    "npm test -- {w}",
    "wc -l {f}",
    "git log --oneline -5 -- {f}",
    "python -m {w}.{w2} --check",
    'grep -rn "{w}" {d} | head -50',
)


def _json(kind: str, payload: dict, ts: int) -> str:
    stamp = f"2026-09-27T{ts // 3600 % 24:02d}:{ts // 60 % 60:02d}:{ts % 60:02d}.{ts % 1000:03d}Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload}, ensure_ascii=False, separators=(",", ":"))


class RolloutWriter:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ts = 0
        self.calls = 0

    def path(self) -> str:
        r = self.rng
        return "/".join(r.choice(WORDS) for _ in range(r.randint(1, 3))) + r.choice((".py", ".ts", ".md", ".json"))

    def command(self) -> str:
        r = self.rng
        return r.choice(COMMANDS).format(d=r.choice(WORDS), w=r.choice(WORDS), w2=r.choice(WORDS), f=self.path())

    def js_string(self, text: str) -> str:
        return json.dumps(text, ensure_ascii=False)

    def exec_args(self, cmd: str) -> str:
        r = self.rng
        workdir = "/home/dev/project"
        if r.random() < 0.2:  # JSON-style arguments
            return json.dumps({"cmd": cmd, "workdir": workdir})
        extra = f", max_output_tokens: {r.choice((2000, 8000, 14000))}" if r.random() < 0.4 else ""
        return f"{{cmd: {self.js_string(cmd)}, workdir: {self.js_string(workdir)}{extra}}}"

    def patch_text(self) -> str:
        r = self.rng
        body = [f"*** Update File: {self.path()}", "@@"]
        for _ in range(r.randint(2, 30)):
            body.append(r.choice(("-", "+", " ")) + " ".join(r.choice(WORDS) for _ in range(r.randint(1, 8))))
        if r.random() < 0.3:
            body += [f"*** Add File: {self.path()}", "+" + " ".join(r.choice(WORDS) for _ in range(6))]
        return "*** Begin Patch\n" + "\n".join(body) + "\n*** End Patch"

    def script(self) -> str:
        r = self.rng
        roll = r.random()
        if roll < 0.001:
            return 'const x = await tools.exec_command({cmd: "ls"}\nif (x { text(x) }\n'
        if roll < 0.45:
            lines = [
                f"const r{i} = await tools.exec_command({self.exec_args(self.command())});"
                for i in range(r.randint(1, 4))
            ]
            return "\n".join(lines) + "\n" + "".join(f"text(r{i});" for i in range(len(lines))) + "\n"
        if roll < 0.55:
            cmds = [self.command() for _ in range(r.randint(2, 6))]
            return (
                f"const cmds = {json.dumps(cmds)};\nconst r = await Promise.allSettled(cmds.map(cmd => "
                f'tools.exec_command({{cmd, workdir: "/home/dev/project", max_output_tokens: 14000}})));\n'
                "r.forEach((x, i) => text(JSON.stringify({i, result: x})));\n"
            )
        if roll < 0.65:
            return f"text(await tools.apply_patch({self.js_string(self.patch_text())}));\n"
        if roll < 0.72:
            return f"text(await tools.apply_patch(`{self.patch_text().replace('`', '')}`));\n"
        if roll < 0.78:
            return f"const patch = {self.js_string(self.patch_text())};\nconst result = await tools.apply_patch(patch);\ntext(result);\n"
        if roll < 0.85:
            return (
                "text(await tools.mcp__github__search_issues({query: "
                + self.js_string(" ".join(r.choice(WORDS) for _ in range(3)))
                + ", perPage: 20}));\n"
            )
        if roll < 0.92:
            return (
                f"const out = await tools.exec_command({self.exec_args(self.command())});\n"
                "if (out.exit_code !== 0) {\n  text(`failed: ${out.output.slice(0, 200)}`);\n} else {\n"
                f"  const next = await tools.exec_command({self.exec_args(self.command())});\n  text(next);\n}}\n"
            )
        return 'text(ALL_TOOLS.filter(x => /search/.test(x.name + " " + x.description)).map(x => x.name));\n'

    def output(self, call_id: str, script: str) -> str:
        r = self.rng
        items = [{"type": "input_text", "text": f"Script completed\nWall time {r.random() * 3:.1f} seconds\nOutput:\n"}]
        for _ in range(max(1, script.count("exec_command"))):
            size = 40_000 if r.random() < 0.03 else r.randint(0, 2000)
            text = "\n".join(" ".join(r.choice(WORDS) for _ in range(8)) for _ in range(size // 60 + 1))[:size]
            items.append(
                {
                    "type": "input_text",
                    "text": json.dumps(
                        {
                            "chunk_id": f"{r.getrandbits(24):06x}",
                            "wall_time_seconds": r.random(),
                            "exit_code": r.choice((0, 0, 0, 1)),
                            "original_token_count": size // 4,
                            "output": text,
                        },
                        separators=(",", ":"),
                    ),
                }
            )
        return _json(
            "response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": items}, self.tick()
        )

    def tick(self) -> int:
        self.ts += self.rng.randint(1, 9)
        return self.ts

    def session(self, target_bytes: int) -> list[str]:
        return list(self.lines(target_bytes))

    def lines(self, target_bytes: int) -> Iterator[str]:
        """The session's lines, a turn at a time (so that a file of any size is written in little memory)."""
        r = self.rng
        first = _json(
            "session_meta",
            {
                "id": "019f0000-0000-7000-8000-00000000beef",
                "cwd": "/home/dev/project",
                "originator": "codex_cli_rs",
                "cli_version": "0.157.1",
                "source": "cli",
                "model_provider": "openai",
            },
            self.tick(),
        )
        yield first
        size = len(first)
        while size < target_bytes:
            turn = [
                _json(
                    "turn_context",
                    {"cwd": "/home/dev/project", "model": "gpt-5.6-sol", "approval_policy": "on-request"},
                    self.tick(),
                ),
                _json(
                    "response_item",
                    {
                        "type": "message",
                        "role": "user",
                        "content": [
                            {"type": "input_text", "text": "Please " + " ".join(r.choice(WORDS) for _ in range(12))}
                        ],
                    },
                    self.tick(),
                ),
            ]
            for _ in range(r.randint(3, 12)):
                if r.random() < 0.3:
                    turn.append(
                        _json(
                            "response_item",
                            {
                                "type": "message",
                                "role": "assistant",
                                "content": [
                                    {"type": "output_text", "text": " ".join(r.choice(WORDS) for _ in range(30))}
                                ],
                            },
                            self.tick(),
                        )
                    )
                self.calls += 1
                call_id = f"call_{self.calls:08d}{r.getrandbits(32):08x}"
                script = self.script()
                turn.append(
                    _json(
                        "response_item",
                        {
                            "type": "custom_tool_call",
                            "status": "completed",
                            "call_id": call_id,
                            "name": "exec",
                            "namespace": "functions",
                            "input": script,
                        },
                        self.tick(),
                    )
                )
                turn.append(self.output(call_id, script))
            yield from turn
            size += sum(len(x) + 1 for x in turn)


def generate(target_bytes: int, seed: int = 1) -> str:
    return "\n".join(RolloutWriter(seed).session(target_bytes)) + "\n"


def large_scripts(count: int, script_bytes: int, seed: int = 1) -> str:
    """A rollout of ``count`` exec scripts of about ``script_bytes`` each: the generator's scripts (those that
    parse), each in a block of its own so that their ``const``s do not clash, one after another."""
    writer = RolloutWriter(seed)
    lines = [
        _json(
            "session_meta",
            {"id": "019f0000-0000-7000-8000-00000001a26e", "cwd": "/home/dev/project", "originator": "codex_cli_rs"},
            writer.tick(),
        )
    ]
    for number in range(count):
        blocks: list[str] = []
        size = 0
        while size < script_bytes:
            script = writer.script()
            if script.startswith('const x = await tools.exec_command({cmd: "ls"}\nif'):
                continue  # the generator's script that does not parse
            blocks.append("{\n" + script + "}\n")
            size += len(blocks[-1])
        call_id = f"call_large{number:06d}"
        payload = {"type": "custom_tool_call", "status": "completed", "call_id": call_id, "name": "exec"}
        lines.append(_json("response_item", {**payload, "input": "".join(blocks)}, writer.tick()))
        lines.append(writer.output(call_id, "tools.exec_command"))
    return "\n".join(lines) + "\n"


def write(path: str | Path, target_bytes: int, seed: int = 1) -> None:
    """The same rollout as :func:`generate`, written a line at a time (a 1 GB file in a few MB)."""
    with open(path, "w", encoding="utf-8") as out:
        for line in RolloutWriter(seed).lines(target_bytes):
            out.write(line + "\n")


def parse_size(text: str) -> int:
    text = text.upper().strip()
    for suffix, factor in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)):
        if text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * factor)
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--size", default="1MB")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    write(args.out, parse_size(args.size), args.seed)


if __name__ == "__main__":
    main()
