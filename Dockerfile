# Production image: the same app `make run` serves, under gunicorn.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    TIKTOKEN_CACHE_DIR=/app/.data/tiktoken LAGRUM_DATA_DIR=/app/.data
WORKDIR /app
# Dependencies first, from pyproject.toml alone (the project itself ships no package): a code
# change then rebuilds only the layers below.
COPY pyproject.toml ./
RUN pip install --no-cache-dir .
COPY . .
RUN DEBUG=false SECRET_KEY=build-only python manage.py collectstatic --noinput
RUN useradd --system --create-home lagrum && mkdir -p /app/.data && chown -R lagrum /app/.data
USER lagrum
EXPOSE 8000
CMD ["gunicorn", "compliance.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4", "--timeout", "120"]
