package fsm

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// sheep is the seed's example: one machine, many sheep, each with its own
// memory.
type sheep struct {
	mouseNear bool
	log       []string
	ticks     int
}

func sheepMachine(t *testing.T) *Machine[*sheep] {
	t.Helper()
	rec := func(what string) func(s *sheep, m *Memory) {
		return func(s *sheep, m *Memory) { s.log = append(s.log, what) }
	}
	m, err := New("idle",
		[]State[*sheep]{
			{Name: "idle", Enter: rec("enter idle"), Exit: rec("exit idle"), Tick: func(s *sheep, m *Memory) { s.ticks++ }},
			{Name: "obey", Enter: rec("enter obey"), Exit: rec("exit obey")},
			{Name: "stopping", Enter: rec("enter stopping"), Exit: rec("exit stopping")},
			{Name: "gone", Final: true, Enter: rec("enter gone")},
		},
		[]Transition[*sheep]{
			{From: "idle", To: "obey", When: func(s *sheep, m *Memory) bool { return s.mouseNear }},
			{From: "obey", To: "stopping", When: func(s *sheep, m *Memory) bool { return !s.mouseNear }},
			{From: "stopping", To: "idle", When: func(s *sheep, m *Memory) bool { return true }},
			{From: Any, To: "gone", Name: "wolf"},
		})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSharedMachineSeparateMemory(t *testing.T) {
	m := sheepMachine(t)
	a, b := &sheep{}, &sheep{}
	var ma, mb Memory
	if got := m.Current(&ma); got != "" {
		t.Fatalf("before start: %q", got)
	}
	m.Tick(a, &ma, 1)
	m.Tick(b, &mb, 1)
	a.mouseNear = true
	if !m.Tick(a, &ma, 2) {
		t.Fatal("idle -> obey did not fire")
	}
	m.Tick(b, &mb, 2)
	if m.Current(&ma) != "obey" || m.Current(&mb) != "idle" {
		t.Fatalf("a=%s b=%s, want obey idle", m.Current(&ma), m.Current(&mb))
	}
	if m.Since(&ma) != 2 {
		t.Fatalf("since = %d, want 2", m.Since(&ma))
	}
	a.mouseNear = false
	m.Tick(a, &ma, 3) // obey -> stopping
	m.Tick(a, &ma, 4) // stopping -> idle, then idle ticks
	want := []string{"enter idle", "exit idle", "enter obey", "exit obey", "enter stopping", "exit stopping", "enter idle"}
	if !reflect.DeepEqual(a.log, want) {
		t.Fatalf("a log:\n got %v\nwant %v", a.log, want)
	}
	if b.ticks != 2 || a.ticks != 2 {
		t.Fatalf("idle ticks a=%d b=%d, want 2 and 2", a.ticks, b.ticks)
	}
}

func TestFinalStateStops(t *testing.T) {
	m := sheepMachine(t)
	s := &sheep{}
	var mem Memory
	m.Start(s, &mem, 0)
	if fired, err := m.Fire("wolf", s, &mem, 1); err != nil || !fired {
		t.Fatalf("Fire wolf = %v, %v", fired, err)
	}
	if !m.Done(&mem) {
		t.Fatal("not done in final state")
	}
	s.mouseNear = true
	if m.Tick(s, &mem, 2) {
		t.Fatal("a transition fired out of a final state")
	}
	if m.Current(&mem) != "gone" {
		t.Fatalf("state %q, want gone", m.Current(&mem))
	}
}

func TestFireRespectsFrom(t *testing.T) {
	m, err := New("a", []State[int]{{Name: "a"}, {Name: "b"}}, []Transition[int]{{From: "b", To: "a", Name: "back"}})
	if err != nil {
		t.Fatal(err)
	}
	var mem Memory
	if _, err := m.Fire("back", 0, &mem, 0); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("Fire before start: %v", err)
	}
	m.Start(0, &mem, 0)
	if fired, _ := m.Fire("back", 0, &mem, 0); fired {
		t.Fatal("fired a transition from another state")
	}
	if _, err := m.Fire("nope", 0, &mem, 0); err == nil {
		t.Fatal("unknown transition name accepted")
	}
	if err := m.To("b", 0, &mem, 5); err != nil || m.Current(&mem) != "b" {
		t.Fatalf("To b: %v, %s", err, m.Current(&mem))
	}
	if err := m.To("zzz", 0, &mem, 5); !errors.Is(err, ErrUnknownState) {
		t.Fatalf("To unknown: %v", err)
	}
}

func TestNewReportsEveryProblem(t *testing.T) {
	_, err := New("start",
		[]State[int]{{Name: "a"}, {Name: "a"}, {Name: ""}},
		[]Transition[int]{{From: "x", To: "a"}, {From: "a", To: "y"}, {From: "a", To: "a", Name: "n"}, {From: "a", To: "a", Name: "n"}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`"a" defined twice`, `invalid name ""`, `initial state "start"`, `from "x"`, `to "y"`, `"n" used twice`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestMemoryIsSmall(t *testing.T) {
	if s := reflect.TypeOf(Memory{}).Size(); s != 16 {
		t.Fatalf("Memory is %d bytes, want 16", s)
	}
}
