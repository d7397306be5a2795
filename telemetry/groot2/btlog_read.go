package groot2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// BTLogFile is a parsed .btlog.
type BTLogFile struct {
	XML         []byte
	First       time.Time
	Transitions []Transition
}

// Transition is one record of a .btlog or a GET_TRANSITIONS reply.
type Transition struct {
	Elapsed time.Duration // since the first timestamp (the recording's start)
	UID     uint16
	Status  byte // BT.CPP's code
}

// maxBTLogXML bounds the tree a .btlog may carry.
const maxBTLogXML = 64 << 20

// ParseBTLog reads FileLogger2's format. A file cut inside its last
// record (a logger that was killed) keeps the records before it.
func ParseBTLog(data []byte) (*BTLogFile, error) {
	if len(data) < len(BTLogMagic)+1+4 || string(data[:len(BTLogMagic)]) != BTLogMagic {
		return nil, errors.New("not a .btlog (no BTCPP4-FileLogger2 magic)")
	}
	p := len(BTLogMagic)
	if data[p] != 1 {
		return nil, fmt.Errorf(".btlog protocol %d, want 1", data[p])
	}
	p++
	n := binary.LittleEndian.Uint32(data[p:])
	p += 4
	if n > maxBTLogXML || uint64(len(data)-p) < uint64(n)+8 {
		return nil, fmt.Errorf(".btlog: an XML of %d bytes in a file of %d", n, len(data))
	}
	f := &BTLogFile{XML: data[p : p+int(n)]}
	p += int(n)
	f.First = time.UnixMicro(int64(binary.LittleEndian.Uint64(data[p:])))
	p += 8
	f.Transitions = ParseTransitions(data[p:])
	return f, nil
}

// ParseTransitions reads 9-byte transition records (a trailing partial
// record is left out).
func ParseTransitions(b []byte) []Transition {
	out := make([]Transition, 0, len(b)/9)
	for ; len(b) >= 9; b = b[9:] {
		var us uint64
		for i := 5; i >= 0; i-- {
			us = us<<8 | uint64(b[i])
		}
		out = append(out, Transition{Elapsed: time.Duration(us) * time.Microsecond, UID: binary.LittleEndian.Uint16(b[6:]), Status: b[8]})
	}
	return out
}
