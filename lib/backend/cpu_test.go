package backend

import (
	"runtime"
	"slices"
	"testing"
)

func TestInstructionSet(t *testing.T) {
	known := map[string][]string{"amd64": {"AVX-512", "AVX2", "AVX", "SSE2"}, "arm64": {"SVE2", "SVE", "NEON", "arm64"}}
	got := InstructionSet()
	if sets, ok := known[runtime.GOARCH]; ok && !slices.Contains(sets, got) || got == "" {
		t.Fatalf("InstructionSet() = %q on %s", got, runtime.GOARCH)
	}
	if info, _ := Describe(); info.CPU != got {
		t.Fatalf("Describe().CPU = %q, want %q", info.CPU, got)
	}
}
