// Package captions reads and writes the PRVR caption files of MS-SL / HLFormer
// (docs/official-code.md §3.1: TextData/<collection>{train,val,test}.caption.txt): one query per line,
// "<cap_id> <sentence>" split at the first space, where cap_id = "<video_id>#enc#<k>" and the
// video id is everything before the first '#'.
//
// The official reader (HLF:src/Datasets/data_provider.py) strips each line and splits it once; a
// line without a space makes it crash. Here such a line, an empty file, a duplicate cap_id or an
// empty video id is an error naming the file and line.
package captions
