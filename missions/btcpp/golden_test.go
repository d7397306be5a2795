package btcpp

import (
	"path/filepath"
	"testing"

	"github.com/botd-project/botd/missions"
)

// TestGolden runs every golden file: decode/ prints the decoded
// BehaviorTree.CPP file as botd JSON, btcppexport/ a document as
// BehaviorTree.CPP XML. An input that does not decode gives its problems.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"decode", "btcppexport"} {
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
	d, err := missions.Decode(in)
	if err != nil {
		return []byte(problemLines(err)), nil
	}
	switch dir {
	case "btcppexport":
		return Export(d, nil)
	}
	return d.JSON()
}
