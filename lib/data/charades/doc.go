// Package charades reads the Charades annotations staged in charades/ of the shared data directory (see
// datasets/README.md for provenance and licence) and derives PRVR inputs from them:
//
//   - Charades-STA (Gao et al., TALL; the exact PRVR split of MS-SL and HLFormer): lines
//     "VID start end##sentence" (ReadSTA), turned into PRVR captions "<VID>#enc#<k>" (STACaptions);
//   - Charades v1 (AI2 "Hollywood in Homes") CSVs: per video its scene, objects, free-text
//     descriptions, length and timed action intervals "cNNN start end;..." (ReadVideos);
//   - the 157 action class names, "cNNN<TAB>name" (ReadClasses);
//   - label-derived frame features (LabelFrames): at a fixed frame rate, a multi-hot vector over
//     the 157 classes whose annotated interval covers the frame time, concatenated with the mean
//     of the given class-name vectors (GloVe in the real track) of those classes.
//
// Label-derived features keep the real temporal structure PRVR is about (moments that cover part
// of a video) but come from annotations, not pixels; Charades-STA sentences were generated
// semi-automatically from the same labels, so results on them must be reported as "label-derived
// video features" and never beside the papers' I3D numbers (docs/data-sources.md §3).
package charades
