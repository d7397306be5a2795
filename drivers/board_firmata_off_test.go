//go:build !firmata

package drivers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirmataNeedsTheTag: in the default build a firmata board is refused when the config is
// loaded, at the board's kind, with the file's name and how to build botd with firmata support.
func TestFirmataNeedsTheTag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "uno.yaml")
	y := "adaptors:\n  uno: {kind: firmata, port: /dev/ttyACM0}\ndevices:\n  - {name: status, kind: led, pin: \"2\"}\n"
	if err := os.WriteFile(file, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := testKinds().LoadConfig(file)
	if err == nil {
		t.Fatal("a firmata config loaded in a build without firmata support")
	}
	for _, want := range []string{file + ": ", "adaptors.uno.kind: ", "built without firmata support", "go build -tags firmata ./cmd/botd"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %q", want, err)
		}
	}
	if strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("want that one problem only, got %q", err)
	}
}
