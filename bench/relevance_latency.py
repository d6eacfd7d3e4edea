"""The relevance ranker's latency on a 200-element screen: ``python -m bench.relevance_latency [BUDGET_MS]``.

The measurement lives in :mod:`training.eval.ranker_latency` (the relevance evaluation reports it too);
this is its command line.
"""

from __future__ import annotations

import json
import sys

from training.eval.ranker_latency import measure

if __name__ == "__main__":
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    print(json.dumps(measure(200, budget)))
