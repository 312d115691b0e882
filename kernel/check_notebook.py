#!/usr/bin/python3
"""Check an executed notebook: no error outputs, no Go panics printed, and (unless the
notebook's metadata says {"geoalign": {"expect_image": false}}) at least one inline image
(image/png with PNG magic bytes, or an <svg> inside text/html / image/svg+xml).
Exit status 1 with one line per problem."""
import base64, sys
import nbformat

def check(path):
    nb = nbformat.read(path, as_version=4)
    problems, images = [], 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                problems.append(f"cell {i}: error {out.get('ename')}: {out.get('evalue', '')[:300]}")
            if out.output_type == "stream" and out.get("name") == "stderr" and "panic:" in out.get("text", ""):
                problems.append(f"cell {i}: panic on stderr: {out['text'][:300]}")
            data = out.get("data", {})
            png = data.get("image/png")
            if png and base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n":
                images += 1
            if "<svg" in str(data.get("text/html", "")) or "image/svg+xml" in data:
                images += 1
    if nb.metadata.get("geoalign", {}).get("expect_image", True) and images == 0:
        problems.append("no inline image in the outputs")
    return problems

bad = 0
for p in sys.argv[1:]:
    for prob in check(p):
        print(f"{p}: {prob}")
        bad += 1
sys.exit(1 if bad else 0)
