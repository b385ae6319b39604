"""Peak resident memory of a subprocess, measured in it (the zip bomb and LLM body tests)."""

PEAK_RSS = """import resource, sys
def peak_kb():
    # The process's own peak resident memory: VmHWM, of this process image since its exec. getrusage's
    # ru_maxrss keeps across vfork + exec the peak of the process that spawned it (the test runner, hundreds
    # of MB into a suite), so it is only the fallback where /proc is not.
    try:
        with open("/proc/self/status") as fh:
            return int(next(line for line in fh if line.startswith("VmHWM:")).split()[1])
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""
"""Python source defining ``peak_kb()``, prepended to what a measured subprocess runs."""
