package missions

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
)

// FuzzDecode feeds Decode and Load arbitrary bytes, seeded with every
// document in testdata and configs/missions. Neither may panic, every
// failure must be reported as problems, and anything Decode accepts must
// come back unchanged through JSON and YAML.
func FuzzDecode(f *testing.F) {
	for _, pattern := range []string{
		filepath.Join("testdata", "*", "*"),
		filepath.Join("testdata", "*", "*", "*"),
		filepath.Join("..", "configs", "missions", "*"),
	} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				continue // a directory
			}
			f.Add(data)
			if in, _, ok := splitGolden(data); ok {
				f.Add(in)
			}
		}
	}
	reg := catalog.NewRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		m, lerr := Load(data, Options{Registry: reg, Substitute: map[string]string{"Move": "Succeed"}})
		if (m == nil) == (lerr == nil) {
			t.Fatalf("Load returned mission %v and error %v", m != nil, lerr)
		}
		d, err := Decode(data)
		if err != nil {
			var ps bt.Problems
			if !errors.As(err, &ps) || len(ps) == 0 || d != nil {
				t.Fatalf("Decode failed without problems, or with a document: %v", err)
			}
			if lerr == nil {
				t.Fatalf("Load accepted what Decode refused: %v", err)
			}
			return
		}
		// What an imported file's format keeps of it (Document.Origin) no
		// other format keeps.
		d.Origin = nil
		js, err := d.JSON()
		if err != nil {
			t.Fatalf("JSON: %v", err)
		}
		back, err := Decode(js)
		if err != nil {
			t.Fatalf("decoding the JSON of an accepted document: %v\n%s", err, js)
		}
		if !reflect.DeepEqual(back, d) {
			t.Fatalf("JSON round trip changed the document:\n%s", js)
		}
		y, err := d.YAML()
		if err != nil {
			t.Fatalf("YAML: %v", err)
		}
		if back, err = Decode(y); err != nil || !reflect.DeepEqual(back, d) {
			t.Fatalf("YAML round trip: %v\n%s", err, y)
		}
	})
}

// splitGolden returns a golden file's input part.
func splitGolden(data []byte) (in, want []byte, ok bool) {
	for i := 0; i+len(goldenSep) < len(data); i++ {
		if data[i] == '\n' && string(data[i+1:i+1+len(goldenSep)]) == goldenSep {
			return data[:i+1], data[i+1+len(goldenSep):], true
		}
	}
	return nil, nil, false
}
