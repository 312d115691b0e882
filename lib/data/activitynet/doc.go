// Package activitynet reads ActivityNet Captions annotation files (microsoft/2D-TAN
// data/ActivityNet/{train,val,test}.json = train, val_1, val_2; staged in
// activitynet/ of the shared data directory, datasets/README.md): a JSON object {video_id: {duration, timestamps [[s, e], …],
// sentences […]}}. Sentences are trimmed (the files keep a leading space on all but the first).
// Captions turns them into PRVR captions "<video_id>#enc#<k>" in sentence order, videos sorted.
// Only the text side exists here: ActivityNet video features are not obtainable.
package activitynet
