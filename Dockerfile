# detact-service: one file, two targets sharing one base stage.
#   docker build -t detact-service .                          # CPU (the default, last target)
#   docker build --target gpu -t detact-service:gpu .         # GPU: onnxruntime-gpu; run with --gpus all
# torch's PyPI wheels already carry CUDA, so EasyOCR uses a GPU in either image when one is given.
# The models (models/) and the icon pack (icons/) are baked in; nothing is downloaded at run time.
FROM python:3.11-slim AS base

# libgl1 and libglib2.0-0: OpenCV (pulled in by rapidocr-onnxruntime) links against them.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgl1 libglib2.0-0 \
    && rm -rf /var/lib/apt/lists/*

# The service runs as this unprivileged user; the code, venv and models stay root-owned (read-only to it).
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin detact

WORKDIR /app
COPY . /app

# The same install steps as the README's.
RUN python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.14.1 torchvision==0.29.1 && pip install -e .

ENV PATH="/app/.venv/bin:$PATH" \
    PYTHONUNBUFFERED=1 \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=16777216 \
    DETACT_HOST=0.0.0.0 \
    DETACT_PORT=8000 \
    DETACT_WARMUP=true
EXPOSE 8000
# Liveness only (/readyz says when the models are loaded); /healthz stays open when API keys are set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"
ENTRYPOINT ["detact"]
CMD ["serve"]


# GPU: onnxruntime-gpu (with its CUDA and cuDNN wheels) replaces onnxruntime, so the YOLO detector and
# RapidOCR run on CUDA; DETACT_DEVICE=auto then picks CUDA, and with it EasyOCR on torch's CUDA.
FROM base AS gpu
RUN . .venv/bin/activate && pip uninstall -y onnxruntime && pip install "onnxruntime-gpu[cuda,cudnn]"
ENV DETACT_DEVICE=auto \
    NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility
USER detact


# CPU (default target): the base image as it is.
FROM base AS cpu
ENV DETACT_DEVICE=cpu
USER detact
