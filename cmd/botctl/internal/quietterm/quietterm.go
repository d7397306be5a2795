// Package quietterm stops botctl from querying the terminal.
//
// Bubble Tea v1's package init asks Lip Gloss whether the terminal has a
// dark background, which makes termenv write OSC 11 and DSR queries to
// stdout and wait up to 5 s for the answers, reading stdin meanwhile. A
// terminal that does not answer (script(1), some SSH setups, a serial
// console) then delays every botctl command by 5 s and swallows the keys
// typed meanwhile, q included. botctl uses no adaptive colours, so it
// needs no answer: this package's init, which runs after Lip Gloss's and
// before Bubble Tea's (Go initializes the ready package with the smallest
// import path first, and this one does not import Bubble Tea), tells Lip
// Gloss the answer, so nothing is asked. main imports it for that alone.
package quietterm

import "github.com/charmbracelet/lipgloss"

func init() { lipgloss.SetHasDarkBackground(true) }
