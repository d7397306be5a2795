package missions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// ParseSubstitutions reads substitution rules as given to --substitute:
// "ComputePathToPose=Succeed,FollowPath=Running". Spaces around names are
// ignored, and so are empty rules (a trailing comma).
func ParseSubstitutions(rule string) (map[string]string, error) {
	subs := map[string]string{}
	for _, r := range strings.Split(rule, ",") {
		if strings.TrimSpace(r) == "" {
			continue
		}
		if err := addSubstitution(subs, r); err != nil {
			return nil, err
		}
	}
	return subs, nil
}

// LoadSubstitutionFile reads substitutions from a file: a JSON object
// {"ComputePathToPose": "Succeed", ...}, or lines of A=B (blank lines and
// lines starting with # are ignored).
func LoadSubstitutionFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	subs, err := parseSubstitutionFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return subs, nil
}

func parseSubstitutionFile(data []byte) (map[string]string, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var m map[string]string
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, fmt.Errorf("want a JSON object of type names: %w", err)
		}
		subs := map[string]string{}
		for from, to := range m {
			if err := addSubstitution(subs, from+"="+to); err != nil {
				return nil, err
			}
		}
		return subs, nil
	}
	subs := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if err := addSubstitution(subs, t); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	return subs, sc.Err()
}

func addSubstitution(subs map[string]string, rule string) error {
	from, to, ok := strings.Cut(rule, "=")
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	switch {
	case !ok:
		return fmt.Errorf("substitution %q: want Type=Replacement", strings.TrimSpace(rule))
	case from == "" || to == "":
		return fmt.Errorf("substitution %q: empty type name", strings.TrimSpace(rule))
	}
	if prev, dup := subs[from]; dup && prev != to {
		return fmt.Errorf("substitution for %q given twice (%s and %s)", from, prev, to)
	}
	subs[from] = to
	return nil
}
