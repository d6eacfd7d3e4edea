"""Load test of the HTTP API on loopback: throughput and latency at several client counts.

``python -m bench.load [--image examples/form.png] [--profile detact] [--clients 1,4,16] [--duration 60]``

Starts ``detact serve`` on a free 127.0.0.1 port in a subprocess (warm-up on, settings from the
environment), waits until it is ready, then for each client count runs that many concurrent clients for
``--duration`` seconds (each posting the image in a loop, at most ``--max-requests`` in all). A 503 with
``Retry-After`` counts as a rejection and its client waits as told (at most 2 s). Prints a markdown table:
throughput of answered parses, p50/p95/p99 latency of the 200s, rejections, errors, and the server's
resident memory before and after each level (and its peak, sampled every 0.25 s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Level:
    """What one client count measured."""

    clients: int
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    rejected: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    """Other outcomes by status code (or exception name), e.g. 504 timeouts."""
    rss_before: int = 0
    rss_after: int = 0
    rss_peak: int = 0

    def pct(self, q: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        if len(self.latencies_ms) == 1:
            return self.latencies_ms[0]
        return statistics.quantiles(self.latencies_ms, n=100, method="inclusive")[int(q) - 1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def server(port: int, timeout: float = 300.0) -> Iterator[psutil.Process]:
    """``detact serve`` on 127.0.0.1:port with warm-up; yields its process once /readyz says ready."""
    env = {**os.environ, "DETACT_HOST": "127.0.0.1", "DETACT_PORT": str(port), "DETACT_WARMUP": "true"}
    env.setdefault("DETACT_LOG_LEVEL", "warning")
    command = [sys.executable, "-c", "from detact_service.cli import app; app()", "serve"]
    proc = subprocess.Popen(command, env=env, cwd=ROOT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not become ready")
            time.sleep(0.25)
        yield psutil.Process(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def run_level(
    url: str,
    image: bytes,
    data: dict[str, str],
    level: Level,
    duration: float,
    max_requests: int,
    process: psutil.Process,
) -> None:
    """``level.clients`` clients posting ``image`` until ``duration`` s pass or ``max_requests`` are sent."""
    sent = 0
    deadline = time.monotonic() + duration
    stop = asyncio.Event()

    async def sample_rss() -> None:
        while not stop.is_set():
            level.rss_peak = max(level.rss_peak, process.memory_info().rss)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.25)

    async def client(http: httpx.AsyncClient) -> None:
        nonlocal sent
        while time.monotonic() < deadline and sent < max_requests:
            sent += 1
            start = time.perf_counter()
            try:
                response = await http.post(
                    "/parse", files={"image": ("shot.png", image, "image/png")}, data=data
                )
            except httpx.HTTPError as exc:
                level.errors[type(exc).__name__] = level.errors.get(type(exc).__name__, 0) + 1
                continue
            elapsed = (time.perf_counter() - start) * 1000.0
            if response.status_code == 200:
                level.latencies_ms.append(elapsed)
            elif response.status_code == 503 and "retry-after" in response.headers:
                level.rejected += 1
                await asyncio.sleep(min(float(response.headers["retry-after"]), 2.0))
            else:
                code = str(response.status_code)
                level.errors[code] = level.errors.get(code, 0) + 1

    level.rss_before = process.memory_info().rss
    sampler = asyncio.create_task(sample_rss())
    start = time.perf_counter()
    limits = httpx.Limits(max_connections=level.clients + 1)
    async with httpx.AsyncClient(base_url=url, timeout=300, limits=limits) as http:
        await asyncio.gather(*(client(http) for _ in range(level.clients)))
    level.seconds = time.perf_counter() - start
    stop.set()
    await sampler
    level.rss_after = process.memory_info().rss


def table(levels: list[Level], image: str, profile: str, load: tuple[float, float]) -> str:
    mib = 1024 * 1024
    lines = [
        f"Load test (`python -m bench.load`): `{image}`, profile `{profile}`, loopback, "
        f"server settings from the environment (defaults unless set); {os.cpu_count()} CPUs, "
        f"1-min load average {load[0]:.1f} at the start and {load[1]:.1f} at the end.",
        "",
        "| clients | seconds | parses ok | throughput (parses/s) | p50 ms | p95 ms | p99 ms | 503 rejected "
        "| other answers | RSS before MiB | RSS after MiB | RSS peak MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for lv in levels:
        ok = len(lv.latencies_ms)
        errors = ", ".join(f"{n}× {code}" for code, n in sorted(lv.errors.items())) or "0"
        lines.append(
            f"| {lv.clients} | {lv.seconds:.0f} | {ok} | {ok / lv.seconds:.2f} | {lv.pct(50):.0f} | "
            f"{lv.pct(95):.0f} | {lv.pct(99):.0f} | {lv.rejected} | {errors} | "
            f"{lv.rss_before / mib:.0f} | {lv.rss_after / mib:.0f} | {lv.rss_peak / mib:.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--image", default=str(ROOT / "examples" / "form.png"))
    parser.add_argument("--profile", default="detact")
    parser.add_argument("--formats", default="json")
    parser.add_argument("--clients", default="1,4,16", help="comma list of concurrent client counts")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per client count (max 600)")
    parser.add_argument("--max-requests", type=int, default=5000, help="cap on requests per client count")
    args = parser.parse_args(argv)
    duration = min(max(args.duration, 1.0), 600.0)
    counts = [int(part) for part in args.clients.split(",") if part.strip()]
    image = Path(args.image).read_bytes()
    data = {"profile": args.profile, "formats": args.formats}
    port = free_port()
    levels = []
    load_start = os.getloadavg()[0]
    with server(port) as process:
        url = f"http://127.0.0.1:{port}"
        for count in counts:
            level = Level(count)
            asyncio.run(run_level(url, image, data, level, duration, args.max_requests, process))
            levels.append(level)
            print(
                f"{count} clients: {len(level.latencies_ms)} ok, {level.rejected} rejected", file=sys.stderr
            )
    shown = Path(args.image)
    with contextlib.suppress(ValueError):
        shown = shown.resolve().relative_to(ROOT)
    print(table(levels, str(shown), args.profile, (load_start, os.getloadavg()[0])))


if __name__ == "__main__":
    main()
