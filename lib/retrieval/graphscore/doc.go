// Package graphscore turns a GoMLX score function into the block scorers of package
// retrieval, so that any model's similarity — cosine (Cosine), GRAM's negated volume,
// GARE's Δ-adjusted cosine, PRVR's max over clips — is evaluated over a whole test set
// block by block, without ever materialising the queries × items score matrix.
//
// The embeddings stay on the host as float32; each call slices the rows of one query
// block and one item block, runs the compiled graph on them and copies the score block
// out. GoMLX compiles once per block shape (full blocks and the last, shorter one).
//
// Example: text→video and video→text of 20,000 captions against 20,000 videos from
// their embeddings, holding at most one strip of scores:
//
//	sc, err := graphscore.Cosine(backend.MustNew(), textEmb, videoEmb) // [20000, d] each
//	res, err := retrieval.Evaluate[float32](sc, nil, retrieval.Options{VideoToText: true})
package graphscore
