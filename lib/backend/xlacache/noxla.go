//go:build noxla

package xlacache

// Install does nothing: this binary was built without XLA (tag noxla).
func Install(config string) error { return nil }
