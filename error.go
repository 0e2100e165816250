package murlog

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an error for the edge. Transports map a Code to an HTTP
// status and a JSON-RPC error object in one place (httpd/errors.go); nothing
// below the edge knows about either.
type Code string

// The error vocabulary. Codes are part of the public API (JSON-RPC
// error.data.code), so they never change meaning.
const (
	EUnauthorized Code = "unauthorized" // no or invalid credentials
	EForbidden    Code = "forbidden"    // credentials fine, action refused (CSRF, setup done)
	ENotFound     Code = "not_found"
	EConflict     Code = "conflict"     // state does not allow it (duplicate, already done)
	EInvalid      Code = "invalid"      // input fails validation
	ERateLimited  Code = "rate_limited" // slow down; RetryAfter says for how long
	EUnavailable  Code = "unavailable"  // not set up yet, overloaded, maintenance
	ELocked       Code = "locked"       // the owner's lockdown refuses changes (423)
	EInternal     Code = "internal"     // a bug or an I/O failure; details are logged, never sent
)

// Error is murlog's one error type. Message is safe to show to a client; the
// wrapped Err carries internal detail for logs only.
type Error struct {
	Code       Code
	Message    string
	Field      string        // the offending input field, when there is one
	Reason     Reason        // why an EInvalid input was refused, when a page says it in words of its own
	RetryAfter time.Duration // for ERateLimited and EUnavailable
	Err        error         // internal cause; never sent to a client
}

// Reason says why an input was refused, for a page that words its message
// in the reader's language (the setup wizard): it picks the message by the
// Reason and the Field, never by Message's text. "" when only Message says.
type Reason string

// The reasons pages translate.
const (
	ReasonRequired Reason = "required"  // the field is empty
	ReasonTooShort Reason = "too_short" // under its minimum length
	ReasonTooLong  Reason = "too_long"  // over its maximum length
)

func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Field != "" {
		s = string(e.Code) + ": " + e.Field + ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with a client-safe formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EInvalid error about one input field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: EInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Required returns the EInvalid error of an empty field: "is required".
func Required(field string) *Error {
	return &Error{Code: EInvalid, Field: field, Message: "is required", Reason: ReasonRequired}
}

// TooShort is Invalid for a value under its minimum length.
func TooShort(field, format string, args ...any) *Error {
	e := Invalid(field, format, args...)
	e.Reason = ReasonTooShort
	return e
}

// TooLong is Invalid for a value over its maximum length.
func TooLong(field, format string, args ...any) *Error {
	e := Invalid(field, format, args...)
	e.Reason = ReasonTooLong
	return e
}

// NotFound returns an ENotFound error naming the kind of thing missing.
func NotFound(what string) *Error {
	return &Error{Code: ENotFound, Message: what + " not found"}
}

// Internal wraps an unexpected failure. The client sees only "internal error";
// the cause stays in the log.
func Internal(err error) *Error {
	return &Error{Code: EInternal, Message: "internal error", Err: err}
}

// ErrorCode returns the Code of err, EInternal for errors outside the
// vocabulary and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// Found turns a lookup into found, not found or failure: true for a
// value, false and no error for ENotFound, false and the error otherwise.
func Found[T any](_ T, err error) (bool, error) {
	switch ErrorCode(err) {
	case "":
		return true, nil
	case ENotFound:
		return false, nil
	}
	return false, err
}

// ErrorMessage returns the client-safe message of err.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != EInternal {
		return e.Message
	}
	return "internal error"
}

// AsError returns err as an *Error, wrapping anything outside the vocabulary
// as EInternal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}
