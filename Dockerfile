# detact-service, first cut: CPU by default; torch's PyPI wheels carry CUDA, so EasyOCR runs on a GPU
# when the container gets one (docker run --gpus all -e DETACT_DEVICE=cuda ...).
FROM python:3.11-slim

# libgl1 and libglib2.0-0: OpenCV (pulled in by rapidocr-onnxruntime) links against them.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgl1 libglib2.0-0 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . /app

# The same install steps as the README's.
RUN python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.14.1 torchvision==0.29.1 && pip install -e .

ENV PATH="/app/.venv/bin:$PATH" \
    DETACT_HOST=0.0.0.0 \
    DETACT_PORT=8000 \
    DETACT_WARMUP=true
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["detact", "serve"]
