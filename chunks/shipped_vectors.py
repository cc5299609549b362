"""Precomputed statute vectors shipped with the corpus (data/sfs/vectors-<model>.npz).

The bundled statutes are fixed data and the local model is deterministic, so
their chunk vectors are computed once (`manage.py build_sfs_vectors`) and
loaded with the statutes instead of spending an hour of CPU on every fresh
install.

A vector is keyed by the SHA-256 of the exact text the model embeds
(`passage_text(header, text)`, the chunk's `content_hash`) and the file records
the model that made it. A chunk whose text changed (a parser change, an
amended statute) has another hash, finds nothing and is embedded as usual: a
stale vector is never used. With another model (the OpenAI backend) the file
is ignored.

Format: one `.npz` holding `keys` (hex SHA-256, `S64`), `vectors` (float16,
n x dims), `model` and `dimensions`. float16 is what pgvector's halfvec
stores; it keeps each component to ~1e-3 relative error, far below what
changes a cosine ranking, at half the size of float32 (27,355 x 384 → 21 MB).
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from django.conf import settings

from .embedding import active_model_name

_lock = threading.Lock()
_cache: dict[tuple[str, float, str], ShippedVectors | None] = {}


class ShippedVectors:
    def __init__(self, keys: np.ndarray, vectors: np.ndarray, model: str):
        self.model = model
        self.vectors = vectors
        self._index = {key.decode("ascii"): i for i, key in enumerate(keys.tolist())}

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, content_hash: str) -> bool:
        return content_hash in self._index

    def get(self, content_hash: str) -> np.ndarray | None:
        i = self._index.get(content_hash)
        return None if i is None else self.vectors[i].astype(np.float32)


def default_path(model: str | None = None) -> Path:
    if settings.SFS_VECTORS_PATH:
        return Path(settings.SFS_VECTORS_PATH)
    return Path(settings.SFS_CORPUS_PATH).parent / f"vectors-{model or active_model_name()}.npz"


def save(path: Path, vectors_by_hash: dict[str, np.ndarray], *, model: str, dimensions: int) -> int:
    keys = sorted(vectors_by_hash)
    matrix = np.zeros((len(keys), dimensions), dtype=np.float16)
    for i, key in enumerate(keys):
        matrix[i] = np.asarray(vectors_by_hash[key], dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, keys=np.array(keys, dtype="S64"), vectors=matrix, model=np.array(model),
             dimensions=np.array(dimensions))
    tmp.replace(path)  # readers never see a half-written file
    return len(keys)


def load(path: Path) -> tuple[ShippedVectors, int]:
    with np.load(path, allow_pickle=False) as data:
        return ShippedVectors(data["keys"], data["vectors"], str(data["model"])), int(data["dimensions"])


def shipped_vectors() -> ShippedVectors | None:
    """The shipped vectors for the active model and dimensions, or None (other model, no file)."""
    if settings.EMBEDDING_BACKEND != "local":
        return None
    model = active_model_name()
    path = default_path(model)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    key = (str(path), mtime, model)
    with _lock:
        if key not in _cache:
            _cache.clear()
            shipped, dims = load(path)
            ok = shipped.model == model and dims == settings.EMBEDDING_DIMENSIONS
            _cache[key] = shipped if ok else None
        return _cache[key]
