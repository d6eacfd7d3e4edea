"""detact-service: screen parsing for GUI agents.

Importing this package loads no model; build a pipeline with :func:`detact_service.pipeline.get_pipeline`.
"""

__version__ = "0.1.0"
