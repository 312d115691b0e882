// Package featdir reads and writes the feature directories that `geoalign train gare`,
// `geoalign train gram` and `geoalign train hypergram` take with --data DIR: features computed
// elsewhere (CLIP, I3D, RoBERTa, one's own encoders) as NumPy arrays, the ids of their rows, and
// split files. Feature widths come from the arrays; nothing else is configured.
//
// TextVideoLayout (GARE) and TupleLayout (GRAM, HyperGRAM) describe the two layouts; they are
// also what `geoalign train <model> -h` prints. LoadTextVideo and LoadTuples read them,
// WriteTextVideo and WriteTuples write them (for examples and tests). Every error names the file
// and the line, row or field at fault.
package featdir

// TextVideoLayout is the text–video directory format.
const TextVideoLayout = `  video_ids.txt    one video id per line; line i names row i of video.npy
  video.npy        [V, F, D_v] frame features, float32 or float64 ([V, D_v] means F = 1)
  video_mask.npy   optional [V, F]: 1 = real frame, 0 = padding (default: all real);
                   every video needs one real frame
  captions.txt     "<cap_id> <sentence>" lines (the MS-SL caption format); a caption belongs to
                   the video named by cap_id up to its first '#' ("vid7#enc#0" → vid7);
                   line i is row i of text.npy
  text.npy         [T, D_t] sentence features
  words.npy        optional [T, W, D_t] word features, with words_mask.npy [T, W]
                   (only GARE's word-context variant needs them)
  train.txt        video ids of the training split, one per line
  val.txt          optional: video ids of the validation split (model selection, early stopping)
  test.txt         video ids of the test split

A split is a set of videos with all their captions; every video of a split needs a caption and
no video may be in two splits.
` + commonRules

// TupleLayout is the tuple directory format.
const TupleLayout = `  modalities.txt   k ≥ 2 modality names, one per line, the anchor (text) first
  <name>.npy       [N, D_name] features of modality <name>, float32 or float64;
                   row i of every modality is sample i
  ids.txt          N sample ids; line i names row i
  train.txt        sample ids of the training split
  val.txt          optional: sample ids of the validation split
  test.txt         sample ids of the test split
` + commonRules

const commonRules = `
Any array may instead be a member of DIR/features.npz (np.savez(path, video=..., text=...)); a .npy
file wins over a member of the same name. Masks may be float or integer. NaN or ±Inf features are
an error naming the file and row. Without val.txt, a fixed share of the training split (the same
items for every seed, data.CarveValidation) is set aside for validation, and the run records it.
`
