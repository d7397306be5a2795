package bt

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Mem is a node's typed per-agent memory: one T in every agent's memory
// block, reserved with Reserve when the node is built. T is plain data
// (booleans, numbers, Status, sync/atomic's integer types, and arrays and
// structs of them): the block holds no pointers. It is zero when the agent
// is made or reset, and a node's memory is its own to keep across
// activations (Open clears what must not survive one).
//
// A Mem is what a node type keeps instead of word offsets, so that its
// memory reads as named fields:
//
//	type timerMem struct{ start, dur int64 }
//	t := &timer{mem: bt.Reserve[timerMem](b)} // in NodeType.New
//	m := t.mem.Of(a, n)                       // in Open, Tick...: a *timerMem
//	m.start = a.Now()
type Mem[T any] struct{ off int32 }

// Reserve reserves a T of per-agent memory for the node b builds. A T
// holding pointers, strings, slices, maps, interfaces or nothing at all is
// a programming error and panics.
func Reserve[T any](b *Builder) Mem[T] {
	return Mem[T]{off: b.reserveWords(plainWords[T]())}
}

// Of returns agent a's T for node n, the node the memory was reserved for.
// It costs an index and a bounds check: no allocation, no copy.
func (m Mem[T]) Of(a *Agent, n *Node) *T {
	return (*T)(unsafe.Pointer(&a.words[n.mem+m.off]))
}

// MemSlice is a node's typed per-agent memory holding a number of Ts fixed
// when the node is built (one per child, say); see Mem.
type MemSlice[T any] struct{ off, len int32 }

// ReserveSlice reserves count Ts of per-agent memory for the node b builds
// (T as for Reserve).
func ReserveSlice[T any](b *Builder, count int) MemSlice[T] {
	var zero T
	words := (count*int(unsafe.Sizeof(zero)) + 7) / 8
	plainWords[T]()
	return MemSlice[T]{off: b.reserveWords(words), len: int32(count)}
}

// Of returns agent a's Ts for node n, the node the memory was reserved for.
func (m MemSlice[T]) Of(a *Agent, n *Node) []T {
	if m.len == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&a.words[n.mem+m.off])), m.len)
}

// plainWords returns how many memory words a T takes, or panics when a T
// cannot live in an agent's memory block.
func plainWords[T any]() int {
	t := reflect.TypeFor[T]()
	if msg := notPlain(t); msg != "" {
		panic(fmt.Sprintf("bt: node memory of type %v: %s", t, msg))
	}
	if t.Size() == 0 {
		panic(fmt.Sprintf("bt: node memory of type %v: it is empty", t))
	}
	if t.Align() > 8 {
		panic(fmt.Sprintf("bt: node memory of type %v: aligned to %d bytes, the block to 8", t, t.Align()))
	}
	return int(t.Size()+7) / 8
}

// notPlain says why values of t cannot be kept in a memory block (which
// the garbage collector does not scan), or returns "".
func notPlain(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return ""
	case reflect.Array:
		return notPlain(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if msg := notPlain(t.Field(i).Type); msg != "" {
				return fmt.Sprintf("field %s: %s", t.Field(i).Name, msg)
			}
		}
		return ""
	}
	return fmt.Sprintf("a %v may hold a pointer; the memory block holds plain data only", t.Kind())
}
