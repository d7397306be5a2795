package missions

import (
	"path/filepath"
	"testing"

	"github.com/botd-project/botd/bt/catalog"
)

// invalidOptions are the daemon limits the invalid missions are checked
// against.
var invalidOptions = Options{Registry: catalog.NewRegistry(), MinTickHz: 1, MaxTickHz: 100}

// TestInvalidMissions loads every file in testdata/invalid and compares
// the problems, one "CODE path: message" line each, with the expected
// ones written after the file's "-- want --" line.
func TestInvalidMissions(t *testing.T) {
	for _, path := range files(t, filepath.Join("testdata", "invalid", "*")) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, want := readGolden(t, path)
			m, err := Load(in, invalidOptions)
			if err == nil || m != nil {
				t.Fatalf("Load accepted an invalid mission (mission %v, error %v)", m != nil, err)
			}
			checkGolden(t, path, in, want, []byte(problemLines(err)))
		})
	}
}
