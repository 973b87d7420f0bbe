# Frontdesk API / worker image. Build: docker build -t frontdesk .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    FRONTDESK_DATA_DIR=/data FRONTDESK_HOST=0.0.0.0 FRONTDESK_PORT=8000 HF_HUB_OFFLINE=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install ".[openai,postgres,redis,otel]" \
    && useradd --system --home /data --uid 10001 frontdesk \
    && mkdir -p /data && chown frontdesk /data

USER frontdesk
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz')"
CMD ["frontdesk", "serve"]
