package drivers

import (
	"strings"
	"testing"
)

func TestRegistryRefusesDuplicates(t *testing.T) {
	r := NewRegistry(fakeKind("b"), fakeKind("a"))
	if got := strings.Join(r.Names(), ","); got != "a,b" {
		t.Errorf("names %q, want a,b (sorted)", got)
	}
	for _, c := range []struct {
		k    KindInfo
		want string
	}{
		{fakeKind("a"), "registered twice"},
		{KindInfo{New: func() Spec { return &fakeSpec{} }}, "without a name"},
		{KindInfo{Name: "c"}, "has no New"},
	} {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(v.(string), c.want) {
					t.Errorf("Add(%q): panic %v, want %q", c.k.Name, v, c.want)
				}
			}()
			r.Add(c.k)
		}()
	}
	if _, ok := r.Kind("c"); ok {
		t.Error("a refused kind was registered")
	}
}

// A config may use only the kinds of its registry: a kind another registry has is unknown.
func TestConfigUsesItsRegistry(t *testing.T) {
	r := NewRegistry(fakeKind("pose"))
	if _, err := r.ParseConfig([]byte("adaptors: {b: {kind: sim}}\ndevices:\n  - {name: p, kind: pose}\n")); err != nil {
		t.Fatal(err)
	}
	_, err := r.ParseConfig([]byte("adaptors: {b: {kind: sim}}\ndevices:\n  - {name: l, kind: led, pin: \"7\"}\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown device kind "led" (want one of pose)`) {
		t.Errorf("a kind the registry lacks: %v", err)
	}
}

// Every kind's leaves are registered whatever the config has (a config without a diff drive
// gets the drive's leaves too, which refuse to compile for want of a device).
func TestRegisterAddsEveryKindsLeaves(t *testing.T) {
	kinds := testKinds()
	cfg := parse(t, "adaptors: {b: {kind: sim}}\ndevices:\n  - {name: p, kind: pose}\n")
	reg := registry(cfg)
	for _, name := range kinds.Names() {
		for _, leaf := range kinds.Leaves(name) {
			if _, ok := reg.Lookup(leaf); !ok {
				t.Errorf("%s's leaf %s is not registered", name, leaf)
			}
		}
	}
	if len(kinds.Leaves("diff_drive")) != 4 || len(kinds.Leaves("servo")) != 1 {
		t.Errorf("diff_drive leaves %v, servo leaves %v", kinds.Leaves("diff_drive"), kinds.Leaves("servo"))
	}
}
