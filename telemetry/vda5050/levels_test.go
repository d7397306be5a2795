package vda5050

import (
	"regexp"
	"strings"
	"testing"
)

// TestLevelChecksMatchTheirPatterns: the plain checks accept exactly what the regular
// expressions they replaced accepted.
func TestLevelChecksMatchTheirPatterns(t *testing.T) {
	topic := regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)
	free := regexp.MustCompile(`^[^/+#\x00]+$`)
	param := regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)
	inputs := []string{"", "uagv", "v2", "AGV_1.a:b-c", "a b", "a/b", "a+b", "a#b", "a\x00b", "ümlaut", "\xff",
		"x", strings.Repeat("k", 64), strings.Repeat("k", 65), "speed_max", "speed-max", "ünter", "Ω"}
	for _, s := range inputs {
		if got, want := isTopicLevel(s), topic.MatchString(s); got != want {
			t.Errorf("isTopicLevel(%q) = %v, the pattern says %v", s, got, want)
		}
		if got, want := isFreeLevel(s), free.MatchString(s); got != want {
			t.Errorf("isFreeLevel(%q) = %v, the pattern says %v", s, got, want)
		}
		if got, want := isParamKey(s), param.MatchString(s); got != want {
			t.Errorf("isParamKey(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}
