package protocol

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzStatusFastPath: whatever the fast decoder accepts, encoding/json
// accepts too, with the same result.
func FuzzStatusFastPath(f *testing.F) {
	for _, s := range []string{
		`{"robot":"r","seq":1,"ts":"2026-11-21T12:00:00.120Z","mission":"m","tick":3,"changes":[[0,"R"],[5,"S"]]}`,
		`{"robot":"r","seq":1,"ts":"2026-11-21T12:00:00.120Z","boot":2,"mission":"m","tick":3,"tick_ts":"2026-11-21T12:00:00.100Z","keyframe":"RRSIF"}`,
		`{"robot":"r","seq":1,"ts":"x","changes":[[-0,"E"],[2147483647,"I"]]}`, `{"changes":null}`, `{}`, `{"changes":[]}`,
		`{"robot":"r","seq":01}`, `{"seq":1.0}`, `{"robot":"\u0072"}`, `{"robot":"r","robot":"s"}`, `{"Robot":"r"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := decodeStatusFast(b)
		if !ok {
			return
		}
		var slow StatusMsg
		if err := json.Unmarshal(b, &slow); err != nil {
			t.Fatalf("fast path took %q, encoding/json refuses it: %v", b, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\nslow %+v", b, fast, slow)
		}
	})
}

func TestStatusFastPathFallsBack(t *testing.T) {
	for _, s := range []string{
		`{ "robot":"r"}`, `{"robot":"r\"s"}`, `{"seq":-1}`, `{"changes":[[1,"X"]]}`, `{"changes":[[1, "R"]]}`, `{"other":1}`, `{"seq":99999999999999999999}`, `{"robot":"r"} `,
	} {
		if _, ok := decodeStatusFast([]byte(s)); ok {
			t.Errorf("fast path took %s", s)
		}
	}
	m, ok := decodeStatusFast([]byte(`{"robot":"r","seq":7,"changes":[[3,"F"]]}`))
	if !ok || m.Robot != "r" || m.Seq != 7 || len(m.Changes) != 1 || m.Changes[0] != (NodeStatus{Node: 3, Status: 'F'}) {
		t.Fatalf("%+v %v", m, ok)
	}
}
