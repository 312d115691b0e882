// Package docs holds the documents the code's comments cite: official-code.md (what the papers'
// official code does, by section), toolchain.md (the measurements behind the toolchain pins),
// data-sources.md (the facts the data code checks against) and tuning.md (how each study's training
// budget was chosen on its validation split). It has no code; its test checks that
// every citation in a comment under lib/ and kernel/ resolves inside the repository.
package docs
