from analysis.session.outputs import read_call_output, read_exec_output
from analysis.session.records import ContentItem


def items(*texts):
    return [ContentItem(type="input_text", text=t) for t in texts]


def test_exec_status_header_and_result_blocks():
    out = read_exec_output(
        items(
            "Script completed\nWall time 0.3 seconds\nOutput:\n",
            '{"chunk_id":"x","wall_time_seconds":0.1,"exit_code":0,"output":"a"}',
            '{"chunk_id":"y","wall_time_seconds":0.1,"exit_code":2,"output":"b"}',
            "plain",
        )
    )
    assert (out.status, out.wall_time, out.exit_codes, out.texts[-1]) == ("completed", 0.3, [0, 2], "plain")
    assert [out.result_output(r) for r in out.results] == ["a", "b"]


def test_running_failed_terminated():
    running = read_exec_output("Script running with cell ID k3x\nWall time 10.0 seconds\nOutput:\npartial")
    assert (running.status, running.cell_id, running.wall_time, running.texts) == ("running", "k3x", 10.0, ("partial",))
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


def test_failed_patches_and_script_errors():
    failed = read_call_output("apply_patch verification failed: Failed to find expected lines in a.py:\nx")
    assert (failed.status, failed.exit_code) == ("failed", None)
    # a script that threw failed, whatever its header said
    thrown = read_exec_output(items("Script completed\nWall time 0.1 seconds\nOutput:\n", "Script error:\nboom"))
    assert (thrown.status, thrown.error) == ("failed", "boom")
    patch = read_call_output('{"output":"gone.py: not found\\n","metadata":{"exit_code":1,"duration_seconds":0.0}}')
    assert (patch.status, patch.exit_code, patch.wall_time) == ("completed", 1, 0.0)  # a patch call makes it failed


def test_exit_codes_come_from_the_header_only():
    out = read_call_output("Wall time: 0.2 seconds\nOutput:\nExit code: 3\nProcess exited with code 4\n")
    assert (out.exit_code, out.wall_time) == (None, 0.2)
    mcp = read_call_output('[{"text":"Exit code: 5"}]')
    assert mcp.exit_code is None


def test_a_running_process_names_its_session():
    out = read_call_output(
        "Chunk ID: 315b93\nWall time: 1.0030 seconds\nProcess running with session ID 66506\n"
        "Original token count: 0\nOutput:\n"
    )
    assert (out.status, out.session_id, out.wall_time) == ("running", "66506", 1.003)
    done = read_call_output("Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 130\nOutput:\n^C\n")
    assert (done.status, done.session_id, done.exit_code) == ("completed", None, 130)
