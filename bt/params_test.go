package bt

import (
	"encoding/json"
	"testing"
)

// The factsheet carries parameter types by name; a ground station reads
// them back.
func TestParamTypeJSONRoundTrip(t *testing.T) {
	for pt := TNumber; pt <= TNumberList; pt++ {
		b, err := json.Marshal(Param{Name: "p", Type: pt})
		if err != nil {
			t.Fatal(err)
		}
		var back Param
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back.Type != pt {
			t.Errorf("%s: got type %v, want %v", b, back.Type, pt)
		}
	}
	var p Param
	if err := json.Unmarshal([]byte(`{"name":"p","type":"colour"}`), &p); err == nil {
		t.Error("an unknown type name was accepted")
	}
}
