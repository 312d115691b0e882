package backend

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// HeapLimitFraction is the share of the machine's memory (MemTotal in /proc/meminfo) that New sets
// as the Go runtime's soft memory limit when the pure-Go backend is selected and GOMEMLIMIT is not
// set. The Go backend keeps its tensors on the Go heap, and with the default collector pacing
// (GOGC=100) the heap may grow to about twice the live data before a collection; a step whose live
// data fits in memory can then be killed by the OOM killer. Near the limit the collector runs more
// often instead. Measured: HLFormer's paper-sized training step (BenchmarkPairedHLFormerTrainStep,
// 128 videos) peaked at 21.6–23.3 GB without a limit on a 23 GiB machine (OOM-killed in one run)
// and at 20.2 GB with a 20 GiB limit, 24.2 s per step either way.
const HeapLimitFraction = 0.85

// applyHeapLimit sets the soft memory limit for the Go backend (see HeapLimitFraction). It
// returns the limit set, 0 if none (another backend, GOMEMLIMIT given, or MemTotal unreadable).
func applyHeapLimit(backendName string) int64 {
	if backendName != "go" {
		return 0
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return 0
	}
	total, err := memTotal("/proc/meminfo")
	if err != nil || total <= 0 {
		return 0
	}
	limit := int64(float64(total) * HeapLimitFraction)
	debug.SetMemoryLimit(limit)
	return limit
}

// memTotal reads MemTotal (bytes) from a /proc/meminfo-formatted file.
func memTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("backend: %s: MemTotal %q: %w", path, fields[1], err)
			}
			return kb * 1024, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("backend: %s has no MemTotal line", path)
}
