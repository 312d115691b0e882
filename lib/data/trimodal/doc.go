// Package trimodal loads the real tri-modal tracks built by `make data` (package tracks) as
// aligned (text, image, audio) triplets ready for GRAM / HyperGRAM training:
//
//   - LoadTuxPaint: instance-level triplets, one per Tux Paint stamp (English caption GloVe mean,
//     32×32 RGB image, pooled log-mel of the French spoken caption); Labels are the stamp's
//     top-level category (animals, food, …), a real shallow hierarchy.
//   - LoadTuxPaintLangs: the same for the multilingual track, the stamps with a spoken caption in
//     every language it records, with one pooled log-mel per requested language (Set.Speech), for
//     GRAM with more than three modalities.
//   - LoadDigits: class-level triplets, one per FSDD recording: the recording, a same-digit
//     sklearn image drawn with a seeded generator, and the GloVe vector of the number word;
//     Labels are the digits, and retrieval on it must count every same-class item as relevant.
package trimodal
