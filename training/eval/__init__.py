"""Evaluations of the runtime on held-out data (``python -m training.eval NAME``)."""
