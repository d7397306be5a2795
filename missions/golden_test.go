package missions

import (
	"path/filepath"
	"testing"
)

// TestGolden runs every golden file: decode/ prints the decoded document
// as botd JSON, yaml/ as botd YAML, btcppexport/ as BehaviorTree.CPP
// XML (the Behavior3 formats' golden files are missions/b3's). An input that does not decode
// gives its problems.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"decode", "yaml", "btcppexport"} {
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
	case "btcppexport":
		return ExportBTCPP(d, nil)
	}
	return d.JSON()
}
