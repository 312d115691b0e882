//go:build noxla

package backend

// DescribePJRT returns nil, nil: this binary was built without XLA (tag noxla).
func DescribePJRT() (*PJRT, error) { return nil, nil }
