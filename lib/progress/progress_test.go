package progress

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

type recorder struct{ calls []string }

func (r *recorder) Update(label string, current, total int, _ time.Duration, detail string, done bool) {
	r.calls = append(r.calls, strings.Join([]string{label, strconv.Itoa(current), strconv.Itoa(total), detail, map[bool]string{true: "done", false: ""}[done]}, "|"))
}

func TestBarThrottlesAndFinishesOnce(t *testing.T) {
	r := &recorder{}
	prev := SetDefault(r)
	defer SetDefault(prev)
	b := New("x", 5)
	for i := 0; i < 5; i++ {
		b.Add(1, "d")
	}
	b.Done()
	b.Done()
	// The first Add renders (lastRender is zero); the next four fall within MinInterval.
	if len(r.calls) != 2 || r.calls[0] != "x|1|5|d|" || r.calls[1] != "x|5|5|d|done" {
		t.Fatalf("calls = %q", r.calls)
	}
}

func TestLineShowsCountsAndDetail(t *testing.T) {
	l := Line("epochs", 2, 4, 10*time.Second, "loss 0.5")
	for _, want := range []string{"epochs", "[============            ] 2/4", "eta 10s", "loss 0.5"} {
		if !strings.Contains(l, want) {
			t.Errorf("%q lacks %q", l, want)
		}
	}
}
