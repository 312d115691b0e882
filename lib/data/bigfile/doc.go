// Package bigfile reads and writes the "BigFile" feature layout used by MS-SL and HLFormer for
// video features (docs/official-code.md §3.1; HLF:src/Utils/basic_utils.py BigFile):
//
//	<dir>/shape.txt        one line "N D"
//	<dir>/id.txt           N whitespace-separated row ids (latin-1 in the official reader)
//	<dir>/feature.bin      N×D little-endian float32, row-major; row i belongs to id i
//	<dir>/video2frames.txt a Python dict literal {video_id: [frame_id, ...], ...}
//
// The official code reads video2frames.txt with Python's eval; ParseVideo2Frames parses the same
// literal with a small dedicated parser instead (strings, lists, dicts only), so a malformed or
// hostile file is an error, never code.
//
// Open validates the three files against each other before any row is read (shape.txt vs id.txt
// count, shape.txt vs feature.bin size), and every row read is checked for NaN and ±Inf, so that
// a truncated download fails with the file and row named rather than training on garbage.
package bigfile
