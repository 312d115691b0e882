package nb

// Must panics if err is not nil: a notebook cell stops and shows the error.
func Must(err error) {
	if err != nil {
		panic(err)
	}
}

// Must1 returns v, or panics if err is not nil.
func Must1[T any](v T, err error) T {
	Must(err)
	return v
}

// Must2 returns a and b, or panics if err is not nil.
func Must2[A, B any](a A, b B, err error) (A, B) {
	Must(err)
	return a, b
}
