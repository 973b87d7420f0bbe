"""From a fresh clone to the first answered question: `make run` timed, venv measured.

    python3 benchmarks/fresh_install.py [--repo .] [--port 8765] [--keep]

Clones the repository's HEAD into a temporary folder, runs `make run` there with an empty
pip cache (PIP_NO_CACHE_DIR=1) and a data folder of its own, waits for `/readyz`, asks the
demo site one question through `POST /v1/ask`, and prints: seconds to the install's end,
to the server being ready, to the first answer; the virtualenv's size; and the installed
size of the product's package set without dev tools (what the Docker image carries).
Needs network access to PyPI (that is what it measures). Stops the server it started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

DEMO_KEY = "pk_demo_tessellate_0001"


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def ask(base: str, question: str) -> dict[str, object]:
    request = urllib.request.Request(
        f"{base}/v1/ask",
        data=json.dumps({"message": question}).encode(),
        headers={
            "Content-Type": "application/json",
            "X-Frontdesk-Key": DEMO_KEY,
            "Origin": base,  # the demo page's own origin, which the demo site allows
        },
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        result: dict[str, object] = json.loads(response.read())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--keep", action="store_true", help="keep the clone for inspection")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="frontdesk-fresh-"))
    clone = root / "frontdesk"
    subprocess.run(["git", "clone", "--quiet", str(args.repo), str(clone)], check=True)
    env = {
        **os.environ,
        "PIP_NO_CACHE_DIR": "1",
        "FRONTDESK_DATA_DIR": str(root / "data"),
        "FRONTDESK_PORT": str(args.port),
        "FRONTDESK_HOST": "127.0.0.1",
    }
    base = f"http://127.0.0.1:{args.port}"
    started = time.monotonic()
    server = subprocess.Popen(
        ["make", "run"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log = root / "make-run.log"
    installed_at: float | None = None
    try:
        # The install ends when the virtualenv's run stamp appears.
        stamp = clone / ".venv" / ".installed-run"
        with log.open("wb") as sink:
            assert server.stdout is not None
            os.set_blocking(server.stdout.fileno(), False)
            deadline = started + args.timeout
            ready = False
            while time.monotonic() < deadline and server.poll() is None:
                chunk = server.stdout.read()
                if chunk:
                    sink.write(chunk)
                if installed_at is None and stamp.exists():
                    installed_at = time.monotonic() - started
                try:
                    with urllib.request.urlopen(f"{base}/readyz", timeout=5) as response:
                        ready = response.status == 200
                except (urllib.error.URLError, OSError):
                    ready = False
                if ready:
                    break
                time.sleep(1)
        if not ready:
            sys.exit(f"server not ready after {time.monotonic() - started:.0f}s; see {log}")
        ready_at = time.monotonic() - started
        answer = ask(base, "How do I pay an invoice?")
        answered_at = time.monotonic() - started
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
    venv = clone / ".venv"
    site_packages = next(venv.glob("lib/python*/site-packages"))
    figures = {
        "install_s": round(installed_at or 0.0, 1),
        "ready_s": round(ready_at, 1),
        "first_answer_s": round(answered_at, 1),
        "venv_mb": round(folder_size(venv) / 1e6, 1),
        "site_packages_mb": round(folder_size(site_packages) / 1e6, 1),
        "answer_route": answer.get("route"),
        "answer_start": str(answer.get("answer", ""))[:120],
    }
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    if args.keep:
        print("kept:", root)
    else:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
