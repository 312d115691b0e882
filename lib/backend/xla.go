package backend

// IsXLA reports whether the process-wide backend of New is XLA (GOMLX_BACKEND=xla:…, any
// plugin). It creates the backend if needed and reports false when that fails.
//
// Tests use it, through SkipOnXLA, where a check cannot run on XLA or would repeat on XLA,
// far more slowly, what another test already proves on both backends: XLA compiles every new
// program, so a test that builds hundreds of distinct graphs costs minutes there and
// milliseconds on the Go backend (docs/xla.md §2 lists every such skip and why).
func IsXLA() bool {
	b, err := New()
	if err != nil {
		return false
	}
	return b.Name() == "xla"
}

// Skipper is the part of testing.TB that SkipOnXLA uses (this package does not import testing).
type Skipper interface {
	Helper()
	Skipf(format string, args ...any)
}

// SkipOnXLA skips the calling test when the backend is XLA (IsXLA), with a message that
// names the reason and where the same property is covered on XLA, e.g.
//
//	backend.SkipOnXLA(t, "one program per coordinate; lib/parity compares the gradients with the Go backend's")
//
// Every call is listed in docs/xla.md §2.
func SkipOnXLA(t Skipper, reason string) {
	t.Helper()
	if IsXLA() {
		t.Skipf("skipped on XLA (docs/xla.md §2): %s", reason)
	}
}
