// Package featdir reads and writes the feature directories that `geoalign train gare`,
// `geoalign train gram` and `geoalign train hypergram` take with --data DIR: features computed
// elsewhere (CLIP, I3D, RoBERTa, one's own encoders) as NumPy arrays, the ids of their rows, and
// split files. Feature widths come from the arrays; nothing else is configured.
//
// # Text–video directories (GARE)
//
//	video_ids.txt    one video id per line; line i names row i of video.npy
//	video.npy        [V, F, D_v] frame features (float32 or float64; [V, D_v] means F = 1)
//	video_mask.npy   optional [V, F]: 1 for a real frame, 0 for padding (default: all frames real);
//	                 every video needs at least one real frame
//	captions.txt     one caption per line, "<cap_id> <sentence>" (the MS-SL caption format of
//	                 package captions); the caption's video is the part of cap_id before the first
//	                 '#', e.g. "video7#enc#0" belongs to video7; caption i is row i of text.npy
//	text.npy         [T, D_t] sentence features
//	words.npy        optional [T, W, D_t] word features and words_mask.npy [T, W] (needed only by
//	                 GARE's word-context variant)
//	train.txt        video ids of the training split, one per line
//	val.txt          optional: video ids of the validation split (model selection, early stopping)
//	test.txt         video ids of the test split
//
// A split holds videos; each video brings all its captions. Every video of a split needs at least
// one caption, and no video may be in two splits.
//
// # Tuple directories (GRAM, HyperGRAM)
//
//	modalities.txt   k ≥ 2 modality names, one per line, the anchor (text) first
//	<name>.npy       [N, D_name] features of modality <name>; row i of every modality is sample i
//	ids.txt          N sample ids; line i names row i
//	train.txt, val.txt (optional), test.txt   sample ids
//
// # Common rules
//
// Any array may instead be a member of one DIR/features.npz (np.savez(path, video=…, text=…));
// a .npy file wins over a member of the same name. Masks may be float or integer arrays. NaN and
// ±Inf features are errors naming the file and the row. Without val.txt, CarveValidation sets
// aside a fixed share of the training split (data.CarveValidation: the same items for every
// seed), and Splits.Note says so. Every error names the file and the line, row or field at fault.
package featdir
