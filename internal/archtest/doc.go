// Package archtest holds one test: that the packages import only what
// docs/ARCHITECTURE.md's package table says each may import. It has no
// code of its own.
package archtest
