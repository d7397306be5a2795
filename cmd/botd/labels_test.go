package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/configs"
)

// Labels in the config: the valid ones load and go out in the factsheet;
// a bad key, a bad value, a long one or too many are each reported under
// labels, and nothing starts.
func TestConfigLabels(t *testing.T) {
	sim := filepath.Join(mustAbs(t, "../../configs"), "sim.yaml")
	good := "robot: r1\nhardware: " + sim + "\nlabels: {site: yard-a, team: blue, kind: rover, zone.x: 'b2:3'}\n"
	cfg, err := parseConfig([]byte(good), os.DirFS(t.TempDir()), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Labels["site"] != "yard-a" || len(cfg.Labels) != 4 {
		t.Fatalf("labels %v", cfg.Labels)
	}

	var many strings.Builder
	for i := range 33 {
		fmt.Fprintf(&many, "k%d: v\n  ", i)
	}
	for _, tc := range []struct{ name, labels, want string }{
		{"upper-case key", "{Site: a}", `label key "Site"`},
		{"space in value", "{site: 'yard a'}", `site: label value "yard a"`},
		{"glob in value", "{site: 'yard-*'}", `label value "yard-*"`},
		{"empty value", "{site: ''}", `label value ""`},
		{"key ends in a dash", "{site-: a}", `label key "site-"`},
		{"long key", "{" + strings.Repeat("k", 64) + ": a}", "longer than 63"},
		{"long value", "{site: " + strings.Repeat("v", 64) + "}", "longer than 63"},
		{"too many", "\n  " + many.String(), "33 labels: at most 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig([]byte("robot: r1\nhardware: "+sim+"\nlabels: "+tc.labels+"\n"), os.DirFS(t.TempDir()), "bad.yaml")
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), "labels: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error lacks labels: ...%s:\n%v", tc.want, err)
			}
		})
	}

	// The factsheet carries them (a copy: the config is not shared).
	cfg.Broker.URL = "tcp://127.0.0.1:1" // nothing is dialled before Run
	cfg.StateDir = t.TempDir()
	cfg.dir = configs.FS
	s, err := build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	f := s.factsheet()
	if f.Labels["team"] != "blue" || f.Labels["zone.x"] != "b2:3" || len(f.Labels) != 4 {
		t.Fatalf("factsheet labels %v", f.Labels)
	}
	f.Labels["team"] = "red"
	if cfg.Labels["team"] != "blue" {
		t.Error("the factsheet shares the config's map")
	}
}
