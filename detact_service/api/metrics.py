"""Prometheus metrics, one registry per app (so several apps in one process never clash)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from detact_service.core import ScreenParse
from detact_service.stages import loaded_model_keys

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


class Metrics:
    """The app's counters, histograms and gauges, in their own :class:`CollectorRegistry`."""

    def __init__(
        self,
        *,
        queue_depth: Callable[[], float],
        in_flight: Callable[[], float],
        warming: Callable[[], float],
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "detact_http_requests",
            "HTTP requests answered, by method, route and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "detact_http_request_duration_seconds",
            "HTTP request latency, by method and route.",
            ["method", "route"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.stage_seconds = Histogram(
            "detact_stage_duration_seconds",
            "Pipeline stage time per image, by stage (text, regions, merge, icons, colors, total, ...).",
            ["stage"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.batch_size = Histogram(
            "detact_batch_size",
            "Images per pipeline run.",
            buckets=(1, 2, 3, 4, 6, 8, 12, 16, 32),
            registry=self.registry,
        )
        self.rejected = Counter(
            "detact_rejected",
            "Parse requests refused at once because the queue was full (503 overloaded).",
            registry=self.registry,
        )
        Gauge(
            "detact_queue_depth",
            "Admitted parse requests not yet inside a pipeline run.",
            registry=self.registry,
        ).set_function(queue_depth)
        Gauge(
            "detact_parses_in_flight", "Images inside running pipeline calls.", registry=self.registry
        ).set_function(in_flight)
        Gauge("detact_models_loaded", "Models loaded in this process.", registry=self.registry).set_function(
            lambda: float(len(loaded_model_keys()))
        )
        Gauge("detact_warming", "1 while the start-up warm-up runs.", registry=self.registry).set_function(
            warming
        )

    def observe_batch(self, parses: Sequence[ScreenParse], size: int) -> None:
        """Record a pipeline run: its size and each image's stage timings."""
        self.batch_size.observe(size)
        for parse in parses:
            for stage, ms in parse.timings_ms.items():
                self.stage_seconds.labels(stage=stage).observe(ms / 1000.0)

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
