// Package progress reports the progress of long loops (training epochs, streaming
// evaluation, data building) without the loop knowing where it runs.
//
// Library code calls New and then Add/Done. The Sink decides how it is shown: a throttled
// one-line bar on stderr by default (commands, tests, `make`), and an updating HTML bar in
// GoNB notebooks once kernel/nb is imported (it installs its sink in init).
//
//	bar := progress.New("epochs", 100)
//	for e := 0; e < 100; e++ {
//		...
//		bar.Add(1, fmt.Sprintf("loss %.3f", loss))
//	}
//	bar.Done()
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Sink renders progress updates. Update is called at most every MinInterval and once more
// from Done (with done = true).
type Sink interface {
	Update(label string, current, total int, elapsed time.Duration, detail string, done bool)
}

// MinInterval between two renders of one bar: frequent enough to see, rare enough not to
// slow a tight loop or flood a notebook's output.
const MinInterval = 250 * time.Millisecond

var (
	mu          sync.Mutex
	defaultSink Sink = &TextSink{W: os.Stderr}
)

// SetDefault installs the sink used by bars created afterwards and returns the previous one.
func SetDefault(s Sink) Sink {
	mu.Lock()
	defer mu.Unlock()
	prev := defaultSink
	defaultSink = s
	return prev
}

// Bar tracks one loop. It is safe for concurrent Add calls.
type Bar struct {
	mu         sync.Mutex
	sink       Sink
	label      string
	total      int
	current    int
	start      time.Time
	lastRender time.Time
	detail     string
	done       bool
}

// New starts a bar of total steps (total <= 0 means unknown) on the default sink.
func New(label string, total int) *Bar {
	mu.Lock()
	s := defaultSink
	mu.Unlock()
	return &Bar{sink: s, label: label, total: total, start: time.Now()}
}

// Add advances the bar by n steps; detail (e.g. "loss 0.123") replaces the previous one
// when non-empty.
func (b *Bar) Add(n int, detail string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.current += n
	if detail != "" {
		b.detail = detail
	}
	if now := time.Now(); now.Sub(b.lastRender) >= MinInterval {
		b.lastRender = now
		b.sink.Update(b.label, b.current, b.total, now.Sub(b.start), b.detail, false)
	}
}

// Done renders the final state once; further calls do nothing.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	b.sink.Update(b.label, b.current, b.total, time.Since(b.start), b.detail, true)
}

// TextSink draws a one-line bar, rewritten in place with '\r', on W.
type TextSink struct{ W io.Writer }

// Update implements Sink.
func (t *TextSink) Update(label string, current, total int, elapsed time.Duration, detail string, done bool) {
	end := "\r"
	if done {
		end = "\n"
	}
	fmt.Fprintf(t.W, "%s%s", Line(label, current, total, elapsed, detail), end)
}

// Line formats a progress state on one line: label, bar, count, elapsed time, ETA, detail.
func Line(label string, current, total int, elapsed time.Duration, detail string) string {
	const width = 24
	var b strings.Builder
	b.WriteString(label)
	if total > 0 {
		frac := float64(current) / float64(total)
		if frac > 1 {
			frac = 1
		}
		filled := int(frac * width)
		fmt.Fprintf(&b, " [%s%s] %d/%d", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), current, total)
		if current > 0 && current < total {
			eta := time.Duration(float64(elapsed) / float64(current) * float64(total-current))
			fmt.Fprintf(&b, " %s, eta %s", elapsed.Round(time.Second), eta.Round(time.Second))
		} else {
			fmt.Fprintf(&b, " %s", elapsed.Round(time.Millisecond))
		}
	} else {
		fmt.Fprintf(&b, " %d %s", current, elapsed.Round(time.Millisecond))
	}
	if detail != "" {
		b.WriteString("  " + detail)
	}
	return b.String()
}
