package auth

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// BenchmarkCheckAccepted is the cost of an accepted envelope: the checks,
// the signature and the nonce appended and synced to disk.
func BenchmarkCheckAccepted(b *testing.B) {
	f := newFixture(b)
	for range b.N {
		b.StopTimer()
		f.advance(time.Second) // one command a second: the store stays within its bound
		p := f.signed("ops", "rover-1", start("m1"))
		var c protocol.Command
		json.Unmarshal(p, &c)
		b.StartTimer()
		if r := f.v.Check(c, p); r != nil {
			b.Fatal(r)
		}
	}
}

// BenchmarkCheckForged is the cost of a forgery that gets as far as the
// signature check (the most a command without the key can cost).
func BenchmarkCheckForged(b *testing.B) {
	f := newFixture(b)
	p := f.signed("ops", "rover-1", start("m1"))
	var c protocol.Command
	json.Unmarshal(p, &c)
	// One character of the signature changed (to another one: the key
	// and nonce are random, and one signature in 64 has an "A" there).
	flip := "A"
	if c.Auth.Sig[10] == 'A' {
		flip = "B"
	}
	c.Auth.Sig = c.Auth.Sig[:10] + flip + c.Auth.Sig[11:]
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := f.v.Check(c, p); r == nil || r.Code != protocol.ErrBadSignature {
			b.Fatal(r)
		}
	}
}
