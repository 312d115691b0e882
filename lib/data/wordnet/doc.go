// Package wordnet reads the Princeton WordNet 3.0 noun database (the wndb files data.noun and
// index.noun, see `man 5 wndb`) and builds the two transitive closures that hyperbolic-embedding
// papers are evaluated on:
//
//   - the noun closure: every (hyponym, hypernym) pair of the is-a hierarchy, instances included,
//     82,115 nodes and 743,086 edges for WordNet 3.0, the closure that
//     facebookresearch/poincare-embeddings wordnet/transitive_closure.py builds with NLTK;
//   - the mammal closure: the subset under mammal.n.01 selected and filtered exactly as the
//     upstream wordnet/Makefile does with grep and mammals_filter.txt, 1,181 nodes and 6,541 edges.
//
// Synsets are named as NLTK names them (dog.n.01), so closures, figures and tables can be compared
// with every published artefact that uses NLTK names.
//
// The data comes from Debian's wordnet-base package (files in DefaultDir). WordNet 3.0 licence:
// use, copying and distribution are free provided the Princeton copyright notice and disclaimer
// (the header of data.noun) are kept with any copy. The mammal filter is reference data of
// facebookresearch/poincare-embeddings (CC BY-NC 4.0), read at run time from
// wordnet/mammals_filter.txt of the shared data directory (DefaultMammalFilter; datasets/README.md); it is not copied here.
package wordnet
