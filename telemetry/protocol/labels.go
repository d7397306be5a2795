package protocol

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Robot labels (the factsheet's labels): a few key=value pairs a fleet is
// sorted by, such as site=yard-a, team=blue, kind=rover. Keys and values
// are short words, so a label selector can be written on a command line
// without quoting (site=yard-a,kind=rover) and glob characters in a
// selector are never part of a label.
const (
	// MaxLabels bounds the labels of one robot.
	MaxLabels = 32
	// MaxLabelLen bounds a label key and a label value (bytes).
	MaxLabelLen = 63
)

var (
	labelKeyPattern   = regexp.MustCompile(`^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$`)
	labelValuePattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)
)

// ValidLabelKey reports whether k can be a label key: 1 to 63 lower-case
// letters, digits and _ . -, starting and ending with a letter or digit.
func ValidLabelKey(k string) error {
	if len(k) > MaxLabelLen {
		return fmt.Errorf("label key %.20q...: longer than %d bytes", k, MaxLabelLen)
	}
	if !labelKeyPattern.MatchString(k) {
		return fmt.Errorf("label key %q: want lower-case letters, digits and _ . - (starting and ending with a letter or digit)", k)
	}
	return nil
}

// ValidLabelValue reports whether v can be a label value: 1 to 63
// letters, digits and _ . : - (the characters of a robot id).
func ValidLabelValue(v string) error {
	if len(v) > MaxLabelLen {
		return fmt.Errorf("label value %.20q...: longer than %d bytes", v, MaxLabelLen)
	}
	if !labelValuePattern.MatchString(v) {
		return fmt.Errorf("label value %q: want letters, digits and _ . : - (not empty)", v)
	}
	return nil
}

// ValidLabels reports every problem of a robot's labels, in key order.
func ValidLabels(labels map[string]string) error {
	var errs []error
	if len(labels) > MaxLabels {
		errs = append(errs, fmt.Errorf("%d labels: at most %d", len(labels), MaxLabels))
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := ValidLabelKey(k); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := ValidLabelValue(labels[k]); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
		}
	}
	return errors.Join(errs...)
}

// FormatLabels writes labels as a selector would name them:
// "kind=rover,site=yard-a" (keys sorted).
func FormatLabels(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(labels[k])
	}
	return b.String()
}
