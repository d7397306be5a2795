package groot2

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/btcpp"
)

// BTLogMagic opens a .btlog file (FileLogger2's format, protocol 1).
const BTLogMagic = "BTCPP4-FileLogger2"

// BTLog writes BehaviorTree.CPP's FileLogger2 format, which Groot2
// replays: the magic, protocol byte 1, the tree's XML (a little-endian
// int32 length, then the XML as FULLTREE carries it), the first
// timestamp (int64 microseconds since the Unix epoch), then 9-byte
// transitions (microseconds since the first timestamp in 6 bytes, node
// uid, BT.CPP's status code).
//
// Its observer runs on the tick goroutine: it appends to a buffer and
// writes to w only when the buffer is full, so give it a file, never a
// connection that can stall.
type BTLog struct {
	w    *bufio.Writer
	last []byte // the code last written, by node
	rec  [9]byte
	err  error
}

// NewBTLog writes the header of a .btlog of tree t (mission d, node
// types from reg) to w, first being the time its transitions count from.
func NewBTLog(w io.Writer, d *missions.Document, t *bt.Tree, reg *bt.Registry, first time.Time) (*BTLog, error) {
	doc, err := btcpp.ExportInstances(d, t, reg)
	if err != nil {
		return nil, err
	}
	l := &BTLog{w: bufio.NewWriterSize(w, 64<<10), last: make([]byte, t.Len())}
	l.w.WriteString(BTLogMagic)
	l.w.WriteByte(1)
	l.w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(doc))))
	l.w.Write(doc)
	l.w.Write(binary.LittleEndian.AppendUint64(nil, uint64(first.UnixMicro())))
	return l, nil
}

// Transition records that node (its index in the tree) went to status
// at elapsed since the first timestamp; a status it already had is not
// written again.
func (l *BTLog) Transition(elapsed time.Duration, node int32, st bt.Status) {
	if l.err != nil || node < 0 || int(node) >= len(l.last) || node >= btcpp.MaxUID {
		return
	}
	code := btcppCode(st)
	if l.last[node] == code {
		return
	}
	l.last[node] = code
	b := appendTransition(l.rec[:0], elapsed.Microseconds(), uint16(node+1), code)
	if _, err := l.w.Write(b); err != nil {
		l.err = err
	}
}

// Observer returns a bt.Observer recording an agent's transitions, at
// the times now gives (since the first timestamp): a tick's status, and
// idle when a node is halted. next, if not nil, sees every event too.
func (l *BTLog) Observer(now func() time.Duration, next bt.Observer) bt.Observer {
	return bt.ObserverFunc(func(a *bt.Agent, node int32, ev bt.Event, st bt.Status) {
		switch ev {
		case bt.EventTick:
			l.Transition(now(), node, st)
		case bt.EventHalt:
			l.Transition(now(), node, bt.Idle)
		}
		if next != nil {
			next.OnNode(a, node, ev, st)
		}
	})
}

// Flush writes what is buffered and returns the first write error.
func (l *BTLog) Flush() error {
	return errors.Join(l.err, l.w.Flush())
}

// btcppCode is BT.CPP's code of a botd status (ERROR is FAILURE there).
func btcppCode(st bt.Status) byte {
	switch st {
	case bt.Running:
		return StatusRunning
	case bt.Success:
		return StatusSuccess
	case bt.Failure, bt.Error:
		return StatusFailure
	case bt.Skipped:
		return StatusSkipped
	}
	return StatusIdle
}
