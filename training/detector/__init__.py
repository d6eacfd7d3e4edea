"""The YOLOv8 UI element detector: training recipe (Ultralytics) and ONNX export for the runtime."""
