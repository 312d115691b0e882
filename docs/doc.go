// Package docs holds the documents the code's comments cite: official-code.md (what the papers'
// official code does, by section), toolchain.md (the measurements behind the toolchain pins) and
// data-sources.md (the facts the data code checks against). It has no code; its test checks that
// every citation in a comment under lib/ and kernel/ resolves inside the repository.
package docs
