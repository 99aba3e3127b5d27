from analysis.outputs import read_call_output, read_exec_output
from analysis.records import ContentItem


def items(*texts):
    return [ContentItem(type="input_text", text=t) for t in texts]


def test_exec_status_header_and_result_blocks():
    out = read_exec_output(items("Script completed\nWall time 0.3 seconds\nOutput:\n",
                                 '{"chunk_id":"x","wall_time_seconds":0.1,"exit_code":0,"output":"a"}',
                                 '{"chunk_id":"y","wall_time_seconds":0.1,"exit_code":2,"output":"b"}', "plain"))
    assert (out.status, out.wall_time, out.exit_codes, out.texts[-1]) == ("completed", 0.3, [0, 2], "plain")
    assert [out.result_output(r) for r in out.results] == ["a", "b"]


def test_running_failed_terminated():
    running = read_exec_output("Script running with cell ID k3x\nWall time 10.0 seconds\nOutput:\npartial")
    assert (running.status, running.cell_id, running.wall_time, running.texts) == ("running", "k3x", 10.0,
                                                                                 ("partial",))
    failed = read_exec_output(items("Script failed\nWall time 0.1 seconds\nOutput:\n", "Script error:\nError: x"))
    assert (failed.status, failed.error) == ("failed", "Error: x")
    assert read_exec_output(items("Script terminated\nWall time 0.2 seconds\nOutput:\n")).status == "terminated"


def test_top_level_outputs():
    assert read_call_output("Exit code: 3\nWall time: 1.5 seconds\nOutput:\nx").exit_codes == [3]
    unified = read_call_output("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n")
    assert (unified.exit_code, unified.wall_time) == (0, 0.1)
    legacy = read_call_output('{"output":"hi","metadata":{"exit_code":1,"duration_seconds":0.5}}')
    assert (legacy.exit_code, legacy.wall_time, legacy.texts) == (1, 0.5, ("hi",))
    assert read_call_output("Process running with session ID 9\n").status == "running"
