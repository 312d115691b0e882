// Package msrvtt reads the MSR-VTT annotations (staged in msrvtt/ of the shared data directory, datasets/README.md):
//
//   - the official MSR-VTT 10K "videodatainfo" JSON ({info, videos [{id, video_id, category,
//     url, start time, end time, split}], sentences [{sen_id, video_id, caption}]}), read
//     directly out of the staged .zip archives (ReadVideoDataInfo accepts a .json or a .zip
//     holding one *videodatainfo.json);
//   - the 1k-A (JSFusion) test list, "key;vid_key;video_id;sentence" with a header row
//     (ReadJSFusion): 1,000 (video, sentence) rows, one caption per video, the square test matrix
//     of GARE (docs/official-code.md §4.5) and GRAM (§1.6).
package msrvtt
