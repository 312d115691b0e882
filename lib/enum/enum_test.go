package enum_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/enum"
)

type color int

const (
	red color = iota
	green
	blue
)

func (c color) String() string {
	switch c {
	case red:
		return "red"
	case green:
		return "green"
	case blue:
		return "blue"
	}
	return fmt.Sprintf("color(%d)", int(c))
}

func (c color) MarshalJSON() ([]byte, error)  { return enum.MarshalJSON(c, blue) }
func (c *color) UnmarshalJSON(b []byte) error { return enum.UnmarshalJSON(c, b, blue) }

type paint struct {
	Fill, Edge color
}

func TestJSONNames(t *testing.T) {
	b, err := json.Marshal(paint{Fill: green, Edge: blue})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"Fill":"green","Edge":"blue"}`; got != want {
		t.Fatalf("Marshal = %s, want %s", got, want)
	}
	var p paint
	if err := json.Unmarshal(b, &p); err != nil || p != (paint{Fill: green, Edge: blue}) {
		t.Fatalf("Unmarshal(%s) = %+v, %v", b, p, err)
	}
}

func TestJSONOldNumbers(t *testing.T) {
	p := paint{Fill: blue, Edge: blue}
	if err := json.Unmarshal([]byte(`{"Fill": 1, "Edge": null}`), &p); err != nil {
		t.Fatal(err)
	}
	if p != (paint{Fill: green, Edge: blue}) {
		t.Fatalf("got %+v, want Fill green (the number 1) and Edge untouched by null", p)
	}
}

func TestJSONRefusals(t *testing.T) {
	for _, in := range []string{`{"Fill": "purple"}`, `{"Fill": 3}`, `{"Fill": -1}`, `{"Fill": 1.5}`, `{"Fill": true}`} {
		var p paint
		err := json.Unmarshal([]byte(in), &p)
		if err == nil || !strings.Contains(err.Error(), "enum_test.color") || !strings.Contains(err.Error(), "red, green, blue") {
			t.Errorf("Unmarshal(%s) error = %v, want one naming the type and its names", in, err)
		}
	}
	if _, err := json.Marshal(paint{Fill: 7}); err == nil {
		t.Error("Marshal of a value without a name succeeded")
	}
}

func TestNames(t *testing.T) {
	if got := strings.Join(enum.Names(blue), " "); got != "red green blue" {
		t.Fatalf("Names = %q", got)
	}
}
