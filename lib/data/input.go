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

// ByteOrderMark is the UTF-8 byte order mark (U+FEFF) that some editors (Windows Notepad, Excel's
// "CSV UTF-8") write at the start of a text file.
const ByteOrderMark = "\ufeff"

// TrimBOM removes a leading ByteOrderMark: call it on the first line of a text file, so that the
// first id of an ids.txt saved by such an editor is the id, not U+FEFF followed by the id.
func TrimBOM(firstLine string) string {
	for len(firstLine) >= len(ByteOrderMark) && firstLine[:len(ByteOrderMark)] == ByteOrderMark {
		firstLine = firstLine[len(ByteOrderMark):]
	}
	return firstLine
}
