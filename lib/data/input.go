package data

import "errors"

// InputError is an error in the data a program was given — a missing, truncated or corrupt
// file, or a field that does not parse — as opposed to a failure while running. Its message
// names the file and field (every reader under lib/data says which). The command line exits 2
// for it and 1 for any other error (lib/cmd/geoalign).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput marks err as an InputError; nil stays nil.
func BadInput(err error) error {
	if err == nil || IsBadInput(err) {
		return err
	}
	return &InputError{Err: err}
}

// IsBadInput reports whether err is, or wraps, an InputError.
func IsBadInput(err error) bool {
	var e *InputError
	return errors.As(err, &e)
}
