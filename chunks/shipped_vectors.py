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

Four files: `vectors-<model>.npz` for the 177 curated statutes (load_sfs --all,
float16), `vectors-<model>-book.npz` beside it for the rest of the statute book
(load_sfs --book, int8, as many statutes as were computed; the worker embeds the rest)
`vectors-<model>-regulations.npz` for the agency regulations and the GDPR
(load_regulations, int8) and `vectors-<model>-records.npz` for the texts of the official 2025–2026 records
(sync_sfs --file, int8, only the chunks no other file has), so that what `make run` loads first is searchable by
meaning from its first minute, not after the worker's half hour.

Format: one `.npz` holding `keys` (hex SHA-256, `S64`), `vectors` (n x dims),
`model` and `dimensions`. `vectors` is float16 (what pgvector's halfvec stores:
~1e-3 relative error per component, half the size of float32; 27,355 x 384 → 21 MB)
or int8 with a float32 `scales` per vector (v ≈ q · scale, scale = max |v| / 127: half
the size again). Ranking with int8 against float16 vectors is in docs/retrieval.md.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from django.conf import settings

from .embedding import active_model_name

_lock = threading.Lock()
_cache: dict[tuple, ShippedVectors | None] = {}


class ShippedVectors:
    """A shipped file's vectors by content hash (and those of the files added to it), with the model and
    dimensions the file records: vectors of another model or size are not used."""

    def __init__(self, keys: np.ndarray, vectors: np.ndarray, model: str, dimensions: int,
                 scales: np.ndarray | None = None) -> None:
        self.model = model
        self.dimensions = dimensions
        self.vectors = vectors
        self.scales = scales
        self._index = {key.decode("ascii"): i for i, key in enumerate(keys.tolist())}
        self._parts: list[ShippedVectors] = []

    def __len__(self) -> int:
        return len(self._index) + sum(len(part) for part in self._parts)

    def __contains__(self, content_hash: str) -> bool:
        return content_hash in self._index or any(content_hash in part for part in self._parts)

    def get(self, content_hash: str) -> np.ndarray | None:
        i = self._index.get(content_hash)
        if i is None:
            for part in self._parts:
                if (found := part.get(content_hash)) is not None:
                    return found
            return None
        vector = self.vectors[i].astype(np.float32)
        return vector * self.scales[i] if self.scales is not None else vector

    def keys(self) -> list[str]:
        return [*self._index, *(k for part in self._parts for k in part.keys())]

    def add(self, part: ShippedVectors) -> None:
        """Answer for `part`'s vectors too (the book's file beside the curated one)."""
        self._parts.append(part)


def default_path(model: str | None = None) -> Path:
    """The curated statutes' file."""
    if settings.SFS_VECTORS_PATH:
        return Path(settings.SFS_VECTORS_PATH)
    return Path(settings.SFS_CORPUS_PATH).parent / f"vectors-{model or active_model_name()}.npz"


def book_path(model: str | None = None) -> Path:
    """The rest of the statute book's file, beside the curated one: `vectors-<model>-book.npz`."""
    path = default_path(model)
    return path.with_name(f"{path.stem}-book{path.suffix}")


def regulations_path(model: str | None = None) -> Path:
    """The agency regulations' and the GDPR's file, beside the curated one: `vectors-<model>-regulations.npz`."""
    path = default_path(model)
    return path.with_name(f"{path.stem}-regulations{path.suffix}")


def records_path(model: str | None = None) -> Path:
    """The official records' texts' file (the chunks no other file has), beside the curated one:
    `vectors-<model>-records.npz`."""
    path = default_path(model)
    return path.with_name(f"{path.stem}-records{path.suffix}")


def shipped_paths(model: str | None = None) -> tuple[Path, ...]:
    """The four files, in the order the loaders read them: the curated statutes', the book's, the regulations' and
    the official records'."""
    return default_path(model), book_path(model), regulations_path(model), records_path(model)


def save(path: Path, vectors_by_hash: dict[str, np.ndarray], *, model: str, dimensions: int,
         dtype: str = "float16") -> int:
    keys = sorted(vectors_by_hash)
    matrix = np.zeros((len(keys), dimensions), dtype=np.float32)
    for i, key in enumerate(keys):
        matrix[i] = np.asarray(vectors_by_hash[key], dtype=np.float32)
    arrays = {}
    if dtype == "int8":
        matrix, arrays["scales"] = quantize_int8(matrix)
    elif dtype == "float16":
        matrix = matrix.astype(np.float16)
    else:
        raise ValueError(f"unknown vector dtype {dtype!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, keys=np.array(keys, dtype="S64"), vectors=matrix, model=np.array(model),
             dimensions=np.array(dimensions), **arrays)
    tmp.replace(path)  # readers never see a half-written file
    return len(keys)


def quantize_int8(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-vector int8: (q, scales) with matrix ≈ q * scales[:, None]."""
    scales = np.abs(matrix).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    q = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
    return q, scales.astype(np.float32)


def load(path: Path) -> ShippedVectors:
    with np.load(path, allow_pickle=False) as data:
        scales = data["scales"][:, None] if "scales" in data.files else None
        return ShippedVectors(data["keys"], data["vectors"], str(data["model"]), int(data["dimensions"]), scales)


def shipped_vectors() -> ShippedVectors | None:
    """The shipped vectors for the active model and dimensions (both files, as present), or None (another
    model, no file)."""
    if settings.EMBEDDING_BACKEND != "local":
        return None
    model = active_model_name()
    stamps = []
    for path in shipped_paths(model):
        try:
            stamps.append((str(path), path.stat().st_mtime))
        except OSError:
            continue
    if not stamps:
        return None
    key = (tuple(stamps), model)
    with _lock:
        if key not in _cache:
            _cache.clear()
            merged = None
            for path, _mtime in stamps:
                shipped = load(Path(path))
                if shipped.model != model or shipped.dimensions != settings.EMBEDDING_DIMENSIONS:
                    continue
                if merged is None:
                    merged = shipped
                else:
                    merged.add(shipped)
            _cache[key] = merged
        return _cache[key]
