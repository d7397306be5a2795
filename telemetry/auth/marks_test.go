package auth

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// A nonce store rolled back (its last line deleted, the file removed, or
// its mark removed) is found out: the captured envelope whose nonce was
// lost is refused, like every envelope issued before the rollback was
// found; fresh ones are taken after the skew. An ordinary restart, with
// compactions on the way, is not mistaken for one.
func TestNonceStoreRollbackDetected(t *testing.T) {
	for _, rollback := range []struct {
		name string
		do   func(dir string)
	}{
		{"last line deleted", func(dir string) {
			path := filepath.Join(dir, NonceFile)
			b, _ := os.ReadFile(path)
			b = b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
			os.WriteFile(path, b, 0o600)
		}},
		{"file deleted", func(dir string) { os.Remove(filepath.Join(dir, NonceFile)) }},
		{"mark deleted", func(dir string) { os.Remove(filepath.Join(dir, MarkFile)) }},
		{"mark damaged", func(dir string) { os.WriteFile(filepath.Join(dir, MarkFile), []byte("00000000 {\"s\":1}\n"), 0o600) }},
	} {
		t.Run(rollback.name, func(t *testing.T) {
			f := newFixture(t)
			for _, m := range []string{"m0", "m1"} {
				if code := f.check(f.signed("ops", "rover-1", start(m))); code != "" {
					t.Fatal(code)
				}
			}
			captured := f.signed("ops", "rover-1", start("m2"))
			if code := f.check(captured); code != "" {
				t.Fatal(code)
			}
			f.store.Close()
			rollback.do(f.dir)
			f.open()
			if f.store.Damaged() == "" {
				t.Fatal("the rollback went unnoticed")
			}
			if code := f.check(captured); code != protocol.ErrReplayed {
				t.Fatalf("the captured envelope after the rollback: %q, want REPLAYED", code)
			}
			f.advance(31 * time.Second)
			if code := f.check(f.signed("ops", "rover-1", start("m3"))); code != "" {
				t.Errorf("a fresh envelope after the skew: %q", code)
			}
			f.open()
			if f.store.Damaged() != "" {
				t.Errorf("the rewritten store is damaged: %s", f.store.Damaged())
			}
		})
	}
	t.Run("restarts and compactions", func(t *testing.T) {
		f := newFixture(t)
		for i := range 300 {
			if code := f.check(f.signed("ops", "rover-1", start("m"))); code != "" {
				t.Fatal(i, code)
			}
			if i%100 == 99 {
				f.open()
				if d := f.store.Damaged(); d != "" {
					t.Fatalf("after %d envelopes: %s", i+1, d)
				}
			}
		}
	})
}
