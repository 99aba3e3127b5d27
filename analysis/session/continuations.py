"""What became of a call record: its output, followed through the calls that carried it on.

A code-mode cell that yielded (``Script running with cell ID 8``) is carried on by ``wait`` calls on its
cell; a command that left its process running (``Process running with session ID 94014``) by
``write_stdin`` calls on its session.  The call then takes its final status and exit code from the last
of them, and its wall time adds up theirs; each ``wait`` and ``write_stdin`` record keeps its own output.

**The last word wins** for a command left running: of its own output, its continuations' outputs and the
``exec_command_end`` events of the command and of each continuation, the latest in the file says how it ended
(an end event: completed, with its exit code; an output: what its header says).  A ``write_stdin`` that failed
(``write_stdin failed: stdin is closed for this session``) says only that writing failed: it is listed among
the continuations and its first line kept as ``write_error``, but the command keeps its last real word
(``running`` when nothing later says it ended).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..jsonl.pickling import pickled_by_fields
from ..script.calls import COMMAND, PATCH
from .events import ToolEvent
from .outputs import WRITE_FAILED, ToolOutput
from .record_analysis import LineAnalysis

EXEC_END = "exec_command_end"


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class CallOutput:
    """What became of a call, as its output records say.

    ``line`` is the output that says the final status: the call's own output, or, for a cell that yielded
    (``Script running with cell ID 8``) or a command that left its process running (``Process running
    with session ID 94014``), the output of the last ``wait`` / ``write_stdin`` that carried it on
    (their call lines are ``continued_by``).  ``wall_time`` then adds up the call's and its continuations'.
    """

    line: int
    status: str | None
    exit_code: int | None
    wall_time: float | None
    output: ToolOutput
    first_line: int | None = None  # the call's own output record, when ``line`` is a continuation's
    continued_by: tuple[int, ...] = ()
    via: str | None = None  # "wait" or "write_stdin"
    write_error: str | None = None  # a continuation's failed write (its first line); the process did not end

    @property
    def note(self) -> str | None:
        """``after 2 waits``, ``after 1 write_stdin``: how the final status was reached."""
        if not self.continued_by:
            return None
        n = len(self.continued_by)
        return f"after {n} {self.via}{'s' if n != 1 and self.via == 'wait' else ' calls' if n != 1 else ''}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status,
            "exit_code": self.exit_code,
            "wall_time": self.wall_time,
            "line": self.line,
        }
        if self.continued_by:
            out.update(first_line=self.first_line, continued_by=list(self.continued_by), via=self.via)
        if self.write_error is not None:
            out["write_error"] = self.write_error
        return out


class MadeOutput(NamedTuple):
    """A call record's output as one linking made it: an entry of the document's memo
    (:attr:`analysis.session.memo.LineCache.outputs_made`), reused while its sources are the same objects."""

    record: LineAnalysis
    output: ToolOutput  # the output record's own output
    made: CallOutput

    def made_from(self, record: LineAnalysis, output: ToolOutput) -> bool:
        """Whether it was made from these very objects (:func:`analysis.session.memo.same`, which this module,
        below the memo, does not import)."""
        return self.record is record and self.output is output


class RecordOutputs:
    """The output of each call record, followed through the ``wait`` calls that carry on a cell and the
    ``write_stdin`` calls that carry on a process."""

    def __init__(
        self,
        records: Sequence[LineAnalysis],
        outputs_by_call_id: dict[str, list[int]],
        call_records: Sequence[int],
        reuse: dict[tuple[int, int], MadeOutput] | None = None,
    ) -> None:
        self.records = records
        self.outputs_by_call_id = outputs_by_call_id
        # the outputs made by the previous linking of the same document: (call line, output line) →
        # its MadeOutput; one found again for the same record and output is reused, not remade
        self.reuse = reuse or {}
        self.made: dict[tuple[int, int], MadeOutput] = {}
        self.waits: dict[str, list[int]] = {}
        self.writes: dict[str, list[int]] = {}
        self._ends: dict[str, list[tuple[int, ToolEvent]]] | None = None
        for number in call_records:
            record = records[number]
            if record.is_exec or record.kind != "function_call" or len(record.calls) != 1:
                continue
            arguments = record.calls[0].arguments
            if record.name == "wait" and "cell_id" in arguments:
                self.waits.setdefault(str(arguments["cell_id"]), []).append(number)
            elif record.name == "write_stdin" and "session_id" in arguments:
                self.writes.setdefault(str(arguments["session_id"]), []).append(number)

    def own_output(self, number: int, record: LineAnalysis) -> tuple[int, ToolOutput] | None:
        lines = self.outputs_by_call_id.get(record.call_id or "")
        if lines:
            output = self.records[lines[0]].output
            return (lines[0], output) if output is not None else None
        if record.output is not None:  # a call record that says how it ended itself (web_search_call)
            return number, record.output
        return None

    def output_of(self, number: int, record: LineAnalysis) -> CallOutput | None:
        own = self.own_output(number, record)
        if own is None:
            return None
        line, output = own
        if output.status != "running":  # no continuation: the record and its output say it all
            found = self.reuse.get((number, line))
            if found is None or not found.made_from(record, output):
                found = MadeOutput(record, output, self._made(number, line, record, output))
            self.made[(number, line)] = found
            return found.made
        return self._made(number, line, record, output)

    def _made(self, number: int, line: int, record: LineAnalysis, output: ToolOutput) -> CallOutput:
        status, exit_code, wall = output.status, output.exit_code, output.wall_time
        if record.calls and record.calls[0].kind == PATCH and not record.is_exec and exit_code not in (None, 0):
            status = "failed"  # a patch whose output reports a non-zero exit did not apply
        chain: Sequence[tuple[int, int, ToolOutput]] = ()
        via: str | None = None
        if output.status == "running" and output.cell_id and record.is_exec:
            chain, via = self.carried(self.waits.get(output.cell_id, ()), line), "wait"
        elif (
            output.status == "running"
            and output.session_id
            and not record.is_exec
            and record.calls
            and record.calls[0].kind == COMMAND
        ):  # a write_stdin record shows its own output, never a chain
            chain, via = self.carried(self.writes.get(output.session_id, ()), line), "write_stdin"
        if via == "wait" or output.status != "running" or not output.session_id:
            if not chain:
                return CallOutput(line, status, exit_code, wall, output)
            last_line, last = chain[-1][1], chain[-1][2]
            walls = [wall] + [o.wall_time for _, _, o in chain]
            total = round(sum(w for w in walls if w is not None), 3) if any(w is not None for w in walls) else None
            return CallOutput(
                last_line,
                last.status,
                last.exit_code if last.exit_code is not None else exit_code,
                total,
                last,
                line,
                tuple(c for c, _, _ in chain),
                via,
            )
        return self._last_word(number, line, record, output, chain)

    def _last_word(
        self,
        number: int,
        line: int,
        record: LineAnalysis,
        output: ToolOutput,
        chain: Sequence[tuple[int, int, ToolOutput]],
    ) -> CallOutput:
        """A command left running: the latest of its outputs and end events says how it ended."""
        words = [(line, output)] + [(o_line, o) for _, o_line, o in chain if o.status != WRITE_FAILED]
        last_line, last = words[-1]
        status, exit_code = last.status, last.exit_code
        for call_line in (number, *(c for c, _, _ in chain)):
            for event_line, event in self.ends(self.records[call_line].call_id):
                if event_line > last_line:  # a later end event: the process ended
                    last_line, status = event_line, "completed"
                    exit_code = event.exit_code if event.exit_code is not None else exit_code
        walls = [output.wall_time] + [o.wall_time for _, _, o in chain]
        total = round(sum(w for w in walls if w is not None), 3) if any(w is not None for w in walls) else None
        if not chain:  # its own output alone: its wall time as it says it
            total = output.wall_time
        failed = [o for _, _, o in chain if o.status == WRITE_FAILED]
        error = failed[-1].error if failed else None
        if failed and status == "running":
            exit_code = None
        return CallOutput(
            words[-1][0],
            status,
            exit_code if exit_code is not None else (output.exit_code if status != "running" else None),
            total,
            words[-1][1],
            line if chain else None,
            tuple(c for c, _, _ in chain),
            "write_stdin" if chain else None,
            error or None,
        )

    def ends(self, call_id: str | None) -> list[tuple[int, ToolEvent]]:
        """The ``exec_command_end`` events naming ``call_id``, with their lines (read once per linking)."""
        if self._ends is None:
            self._ends = {}
            for event_line, found in enumerate(self.records):
                event = found.event
                if event is not None and event.type == EXEC_END and event.call_id:
                    self._ends.setdefault(event.call_id, []).append((event_line, event))
        return self._ends.get(call_id or "", [])

    def carried(self, calls: Iterable[int], after: int) -> list[tuple[int, int, ToolOutput]]:
        """The continuations after ``after`` with an output, up to the first that does not say running."""
        chain = []
        for call_line in calls:
            if call_line <= after:
                continue
            lines = self.outputs_by_call_id.get(self.records[call_line].call_id or "")
            if not lines:
                continue
            output = self.records[lines[0]].output
            if output is None:
                continue
            chain.append((call_line, lines[0], output))
            if output.status not in ("running", WRITE_FAILED):  # a failed write: the process may still run
                break
        return chain


__all__ = ["CallOutput", "MadeOutput", "RecordOutputs"]
