package terrarium

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// String is a string attribute that can also be null or unknown (a computed value Terraform
// shows as "known after apply"). A plain string field is for values that are always known
// and set; *string for values that may be null but are never unknown where you read them.
type String struct {
	value string
	state valueState
}

type valueState uint8

const (
	known valueState = iota
	null
	unknown
)

// StringValue is the known string s.
func StringValue(s string) String { return String{value: s} }

// StringNull is a null string.
func StringNull() String { return String{state: null} }

// StringUnknown is a string not known until apply.
func StringUnknown() String { return String{state: unknown} }

// IsNull says whether the value is null.
func (s String) IsNull() bool { return s.state == null }

// IsUnknown says whether the value is unknown.
func (s String) IsUnknown() bool { return s.state == unknown }

// IsKnown says whether the value is known and not null.
func (s String) IsKnown() bool { return s.state == known }

// Value is the string ("" when null or unknown).
func (s String) Value() string { return s.value }

// String shows the value, or <null> or <unknown>.
func (s String) String() string { return show(s.state, s.value) }

// MarshalJSON writes the string, or null when it is null or unknown.
func (s String) MarshalJSON() ([]byte, error) {
	if s.state != known {
		return []byte("null"), nil
	}
	return json.Marshal(s.value)
}

// UnmarshalJSON reads a string or null.
func (s *String) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = StringNull()
		return nil
	}
	*s = String{}
	return json.Unmarshal(b, &s.value)
}

// Bool is a bool attribute that can also be null or unknown.
type Bool struct {
	value bool
	state valueState
}

// BoolValue is the known bool b.
func BoolValue(b bool) Bool { return Bool{value: b} }

// BoolNull is a null bool.
func BoolNull() Bool { return Bool{state: null} }

// BoolUnknown is a bool not known until apply.
func BoolUnknown() Bool { return Bool{state: unknown} }

// IsNull says whether the value is null.
func (b Bool) IsNull() bool { return b.state == null }

// IsUnknown says whether the value is unknown.
func (b Bool) IsUnknown() bool { return b.state == unknown }

// IsKnown says whether the value is known and not null.
func (b Bool) IsKnown() bool { return b.state == known }

// Value is the bool (false when null or unknown).
func (b Bool) Value() bool { return b.value }

// String shows the value, or <null> or <unknown>.
func (b Bool) String() string { return show(b.state, fmt.Sprint(b.value)) }

// MarshalJSON writes the bool, or null when it is null or unknown.
func (b Bool) MarshalJSON() ([]byte, error) {
	if b.state != known {
		return []byte("null"), nil
	}
	return json.Marshal(b.value)
}

// UnmarshalJSON reads a bool or null.
func (b *Bool) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*b = BoolNull()
		return nil
	}
	*b = Bool{}
	return json.Unmarshal(data, &b.value)
}

// Number is an exact Terraform number (an arbitrary-precision decimal) that can also be
// null or unknown. It keeps the decimal text it was given, so 0.1 stays 0.1 and integers
// beyond 2^53 are never rounded; Float gives a *big.Float to compute with.
type Number struct {
	text  string
	state valueState
}

// NumberValue is the known number written in decimal (or Go's big.Float syntax) text:
// NumberValue("0.1"), NumberValue("123456789012345678901234567890"). It fails on text that is
// not a finite number.
func NumberValue(text string) (Number, error) {
	canonical, err := canonicalNumber(text)
	if err != nil {
		return Number{}, err
	}
	return Number{text: canonical}, nil
}

// NumberInt is the known integer i.
func NumberInt(i int64) Number { return Number{text: fmt.Sprint(i)} }

// NumberFloat is the known number f, exactly as the float64 holds it.
func NumberFloat(f *big.Float) Number { return Number{text: f.Text('g', -1)} }

// NumberNull is a null number.
func NumberNull() Number { return Number{state: null} }

// NumberUnknown is a number not known until apply.
func NumberUnknown() Number { return Number{state: unknown} }

// IsNull says whether the value is null.
func (n Number) IsNull() bool { return n.state == null }

// IsUnknown says whether the value is unknown.
func (n Number) IsUnknown() bool { return n.state == unknown }

// IsKnown says whether the value is known and not null.
func (n Number) IsKnown() bool { return n.state == known }

// Text is the number in decimal ("" when null or unknown).
func (n Number) Text() string { return n.text }

// Float is the number as a *big.Float (nil when null or unknown); decimals that have no exact
// binary form are rounded to 512 bits.
func (n Number) Float() *big.Float {
	if n.state != known {
		return nil
	}
	f, _, err := big.ParseFloat(n.text, 10, 512, big.ToNearestEven)
	if err != nil {
		return nil
	}
	return f
}

// Int64 is the number as an int64, and whether it is a known integer that fits.
func (n Number) Int64() (int64, bool) {
	if n.state != known {
		return 0, false
	}
	i, ok := new(big.Int).SetString(n.text, 10)
	if !ok || !i.IsInt64() {
		return 0, false
	}
	return i.Int64(), true
}

// String shows the value, or <null> or <unknown>.
func (n Number) String() string { return show(n.state, n.text) }

// MarshalJSON writes the number exactly, or null when it is null or unknown.
func (n Number) MarshalJSON() ([]byte, error) {
	if n.state != known {
		return []byte("null"), nil
	}
	return []byte(n.text), nil
}

// UnmarshalJSON reads a number (exactly) or null.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = NumberNull()
		return nil
	}
	v, err := NumberValue(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// canonicalNumber checks that text is a finite decimal number and writes integers without
// exponent or fraction, so that equal integers have one spelling.
func canonicalNumber(text string) (string, error) {
	text = strings.TrimSpace(text)
	f, _, err := big.ParseFloat(text, 10, 512, big.ToNearestEven)
	if err != nil || f.IsInf() {
		return "", fmt.Errorf("%q is not a finite number", text)
	}
	if f.IsInt() {
		i, _ := f.Int(nil)
		if exact, ok := new(big.Int).SetString(text, 10); ok {
			i = exact
		}
		return i.String(), nil
	}
	return text, nil
}

func show(s valueState, v string) string {
	switch s {
	case null:
		return "<null>"
	case unknown:
		return "<unknown>"
	}
	return v
}
