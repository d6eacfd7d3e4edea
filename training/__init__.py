"""Training-side code of detact-service (data engine, training recipes, evaluation).

Sits beside the runtime package and imports it; the runtime package never imports this.
"""
