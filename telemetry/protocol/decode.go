package protocol

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrBadPayload wraps every decoding error.
var ErrBadPayload = errors.New("protocol: bad payload")

// The decoders accept unknown fields (a newer daemon may add some) but
// not a value of the wrong type, a payload that is not a JSON object, or
// a header that is missing or unparseable.

func decodeObject(b []byte, v any) error {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrBadPayload)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %w", ErrBadPayload, err)
	}
	return nil
}

func checkHeader(h Header) error {
	if err := ValidRobotID(h.Robot); err != nil {
		return fmt.Errorf("%w: header robot: %w", ErrBadPayload, err)
	}
	if _, err := h.Time(); err != nil {
		return fmt.Errorf("%w: header ts: %w", ErrBadPayload, err)
	}
	return nil
}

func decodeMsg[T any](b []byte, header func(*T) Header) (T, error) {
	var m T
	if err := decodeObject(b, &m); err != nil {
		return m, err
	}
	if err := checkHeader(header(&m)); err != nil {
		var zero T
		return zero, err
	}
	return m, nil
}

// DecodeConnection decodes a connection message.
func DecodeConnection(b []byte) (ConnectionMsg, error) {
	m, err := decodeMsg(b, func(m *ConnectionMsg) Header { return m.Header })
	if err != nil {
		return m, err
	}
	switch m.State {
	case ConnOnline, ConnOffline, ConnBroken:
		return m, nil
	}
	return ConnectionMsg{}, fmt.Errorf("%w: connection state %q", ErrBadPayload, m.State)
}

// DecodeFactsheet decodes a factsheet.
func DecodeFactsheet(b []byte) (FactsheetMsg, error) {
	return decodeMsg(b, func(m *FactsheetMsg) Header { return m.Header })
}

// DecodeState decodes a state message.
func DecodeState(b []byte) (StateMsg, error) {
	return decodeMsg(b, func(m *StateMsg) Header { return m.Header })
}

// DecodeTree decodes a tree message.
func DecodeTree(b []byte) (TreeMsg, error) {
	m, err := decodeMsg(b, func(m *TreeMsg) Header { return m.Header })
	if err != nil || m.Encoding == "" {
		return m, err
	}
	if m.Encoding != TreeEncodingGzip {
		return TreeMsg{}, fmt.Errorf("%w: tree encoding %q", ErrBadPayload, m.Encoding)
	}
	zr, err := gzip.NewReader(bytes.NewReader(m.Data))
	if err != nil {
		return TreeMsg{}, fmt.Errorf("%w: compressed tree: %w", ErrBadPayload, err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, MaxTreeBytes+1))
	if err != nil {
		return TreeMsg{}, fmt.Errorf("%w: compressed tree: %w", ErrBadPayload, err)
	}
	if len(raw) > MaxTreeBytes {
		return TreeMsg{}, fmt.Errorf("%w: compressed tree inflates beyond %d bytes", ErrBadPayload, MaxTreeBytes)
	}
	if err := json.Unmarshal(raw, &m.Nodes); err != nil {
		return TreeMsg{}, fmt.Errorf("%w: compressed tree: %w", ErrBadPayload, err)
	}
	m.Encoding, m.Data = "", nil
	return m, nil
}

// DecodeStatus decodes a status message: a delta or a keyframe of valid
// status letters.
func DecodeStatus(b []byte) (StatusMsg, error) {
	m, ok := decodeStatusFast(b)
	if ok {
		if err := checkHeader(m.Header); err != nil {
			return StatusMsg{}, err
		}
	} else {
		var err error
		if m, err = decodeMsg(b, func(m *StatusMsg) Header { return m.Header }); err != nil {
			return m, err
		}
	}
	if m.Keyframe != "" && len(m.Changes) > 0 {
		return StatusMsg{}, fmt.Errorf("%w: status with both changes and keyframe", ErrBadPayload)
	}
	for i := 0; i < len(m.Keyframe); i++ {
		if !ValidStatus(m.Keyframe[i]) {
			return StatusMsg{}, fmt.Errorf("%w: keyframe letter %q at %d", ErrBadPayload, m.Keyframe[i], i)
		}
	}
	return m, nil
}

// DecodeBlackboard decodes a blackboard message.
func DecodeBlackboard(b []byte) (BlackboardMsg, error) {
	return decodeMsg(b, func(m *BlackboardMsg) Header { return m.Header })
}

// DecodeEvent decodes an event; it must have an id.
func DecodeEvent(b []byte) (EventMsg, error) {
	m, err := decodeMsg(b, func(m *EventMsg) Header { return m.Header })
	if err == nil && m.ID == "" {
		return EventMsg{}, fmt.Errorf("%w: event without id", ErrBadPayload)
	}
	return m, err
}

// DecodeMetrics decodes a metrics message.
func DecodeMetrics(b []byte) (MetricsMsg, error) {
	return decodeMsg(b, func(m *MetricsMsg) Header { return m.Header })
}

// DecodeReply decodes a reply. Its id is empty when the command it
// answers had none (or could not be parsed).
func DecodeReply(b []byte) (ReplyMsg, error) {
	m, err := decodeMsg(b, func(m *ReplyMsg) Header { return m.Header })
	if err == nil && !m.OK && m.Error == nil {
		return ReplyMsg{}, fmt.Errorf("%w: refusal without error", ErrBadPayload)
	}
	return m, err
}

// DecodePresence decodes a ground station's presence.
func DecodePresence(b []byte) (PresenceMsg, error) {
	var m PresenceMsg
	err := decodeObject(b, &m)
	return m, err
}
