"""Wall time of `frontdesk eval trust` per site (the bar: at most 5 minutes each).

    PYTHONPATH=src .venv/bin/python benchmarks/trust_report.py demo nih-health-en \\
        rutube-support-ru [--questions 54] [--pages 150]

Each site runs twice in a subprocess, in the current FRONTDESK_DATA_DIR: the first run of a
development site embeds its pages into the evaluation cache (its "sync"), the second finds
them there, so the second run's time is the report's own. A configured site (the demo)
must be ingested already (`frontdesk demo` or `frontdesk kb ingest`). Prints, per site and
run, the wall time, the report's own time and its headline figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def run(site: str, questions: int, pages: int, output: Path) -> tuple[float, dict[str, object]]:
    command = [sys.executable, "-m", "frontdesk", "eval", "trust", site, "--json",
               "--questions", str(questions), "--pages", str(pages), "-o", str(output)]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{site}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sites", nargs="+")
    parser.add_argument("--questions", type=int, default=54)
    parser.add_argument("--pages", type=int, default=150)
    parser.add_argument("--output", type=Path, default=Path("reports"))
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for site in args.sites:
        for attempt in (1, 2):
            wall, f = run(site, args.questions, args.pages, args.output)
            print(
                f"{site} run {attempt}: wall {wall:.0f} s, report {f['seconds']} s, "
                f"{f['pages']} pages, {f['questions']} questions: answered {f['answered']}, "
                f"grounded {f['grounded']}, abstained {f['abstained']}, refused {f['refused']}"
            )


if __name__ == "__main__":
    main()
