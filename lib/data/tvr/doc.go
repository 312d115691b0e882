// Package tvr reads TVR query files (jayleicn/TVRetrieval data/tvr_*_release.jsonl; staged in tvr/ of
// the shared data directory, datasets/README.md): one JSON object per line with vid_name, duration, ts [start, end], desc,
// type (v, t or vt: visual, subtitle or both) and desc_id. tvr_val_release.jsonl (10,895 queries
// over 2,179 videos) is the TVR PRVR test set of MS-SL and HLFormer. Captions turns queries into
// PRVR caption ids "<vid_name>#enc#<k>".
package tvr
