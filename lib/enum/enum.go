package enum

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Named is an integer enumeration with a name for each value.
type Named interface {
	~int
	String() string
}

// Names lists the names of the values 0…last of E, in order.
func Names[E Named](last E) []string {
	names := make([]string, 0, int(last)+1)
	for v := E(0); v <= last; v++ {
		names = append(names, v.String())
	}
	return names
}

// MarshalJSON writes e as the JSON string of its name; a value outside 0…last, which has no name, is
// an error naming the type.
func MarshalJSON[E Named](e E, last E) ([]byte, error) {
	if e < 0 || e > last {
		return nil, fmt.Errorf("%T: %d is not one of %s", e, int(e), strings.Join(Names(last), ", "))
	}
	return json.Marshal(e.String())
}

// UnmarshalJSON sets *e from a JSON string holding one of the names of 0…last or, as run directories
// written before names hold them, a JSON number 0…last. Anything else is an error naming the type and
// the names it accepts; null changes nothing.
func UnmarshalJSON[E Named](e *E, b []byte, last E) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" { // encoding/json's convention: null leaves the value as it is
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		for v := E(0); v <= last; v++ {
			if v.String() == name {
				*e = v
				return nil
			}
		}
		return fmt.Errorf("%T: unknown name %q (one of %s)", *e, name, strings.Join(Names(last), ", "))
	}
	n, err := strconv.Atoi(string(b))
	if err != nil || n < 0 || n > int(last) {
		return fmt.Errorf("%T: %s is neither one of %s nor a number 0…%d", *e, b, strings.Join(Names(last), ", "), int(last))
	}
	*e = E(n)
	return nil
}
