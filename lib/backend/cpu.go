package backend

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// InstructionSet names the widest SIMD instruction set this CPU offers: "AVX-512", "AVX2", "AVX" or
// "SSE2" on amd64, "SVE2", "SVE" or "NEON" on arm64, the architecture elsewhere. The pure-Go
// backend's SIMD kernels (and XLA's CPU code generation) follow it, and the width changes the order of
// floating-point sums, hence the last digits of a result (docs/xla.md §6).
func InstructionSet() string {
	switch runtime.GOARCH {
	case "amd64":
		switch {
		case cpu.X86.HasAVX512F:
			return "AVX-512"
		case cpu.X86.HasAVX2:
			return "AVX2"
		case cpu.X86.HasAVX:
			return "AVX"
		}
		return "SSE2"
	case "arm64":
		switch {
		case cpu.ARM64.HasSVE2:
			return "SVE2"
		case cpu.ARM64.HasSVE:
			return "SVE"
		case cpu.ARM64.HasASIMD:
			return "NEON"
		}
	}
	return runtime.GOARCH
}
