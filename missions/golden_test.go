package missions

import (
	"path/filepath"
	"testing"
)

// TestGolden runs every golden file: decode/ prints the decoded document
// as botd JSON, yaml/ as botd YAML (the other formats' golden files are
// their packages', such as missions/b3's and missions/btcpp's). An input
// that does not decode gives its problems.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"decode", "yaml"} {
		paths, _ := filepath.Glob(filepath.Join("testdata", "golden", dir, "*.golden"))
		for _, path := range paths {
			t.Run(dir+"/"+filepath.Base(path), func(t *testing.T) {
				in, want := readGolden(t, path)
				got, err := goldenOutput(dir, in)
				if err != nil {
					t.Fatal(err)
				}
				checkGolden(t, path, in, want, got)
			})
		}
	}
}

func goldenOutput(dir string, in []byte) ([]byte, error) {
	d, err := Decode(in)
	if err != nil {
		return []byte(problemLines(err)), nil
	}
	switch dir {
	case "yaml":
		return d.YAML()
	}
	return d.JSON()
}
