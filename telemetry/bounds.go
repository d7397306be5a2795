package telemetry

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Everything the robot publishes stays under DaemonConfig.MaxPublish,
// below the broker's packet limit: a broker closes the connection of a
// client that publishes a larger packet, and the client's resend after
// the reconnect closes it again, so one oversized message would cut the
// robot off for good. Replies list the first problems and a count, and
// cut long messages with a marker; events and blackboard values are cut
// before they are stored or sent; anything still too large is not sent
// (logged and counted in dropped.publish).

// tooLargeHead is how much of an oversized command is read for its id.
const tooLargeHead = 64 << 10

// boundReply makes a reply fit in max bytes of JSON (with room for the
// header): the error's problems and messages are bounded; a result that
// is still too large is replaced by a note.
func boundReply(r protocol.Reply, max int) protocol.Reply {
	if r.Error != nil {
		e := *r.Error
		e.Bound()
		r.Error = &e
	}
	r.ID = protocol.Truncate(r.ID, maxCommandID)
	if b, err := json.Marshal(r); err == nil && len(b) <= max-headerRoom {
		return r
	}
	if r.Result != nil {
		r.Result = map[string]any{"truncated": "the result was too large to publish"}
	}
	if r.Error != nil {
		e := *r.Error
		e.More += len(e.Problems)
		e.Problems = nil
		r.Error = &e
	}
	return r
}

// headerRoom is what a message's header and envelope add to its body.
const headerRoom = 1 << 10

// boundEvent cuts an event's message and, when its JSON is still larger
// than max, replaces its data by a note: an event is stored in the
// outbox and resent until delivered, so one the broker refuses must
// never be stored.
func boundEvent(e protocol.Event, max int) protocol.Event {
	e.Message = protocol.Truncate(e.Message, protocol.MaxEventMessage)
	if e.Data == nil {
		return e
	}
	if b, err := json.Marshal(e); err == nil && len(b) <= max-headerRoom {
		return e
	} else if err == nil {
		e.Data = map[string]any{"truncated": fmt.Sprintf("data of %d bytes left out", len(b))}
	} else {
		e.Data = map[string]any{"truncated": "data not encodable"}
	}
	return e
}

// boundState cuts the messages of a state's errors and last failure (a
// node's error may quote a value of any size): the state is the robot's
// heartbeat, and one too large to publish would leave the ground station
// without it.
func boundState(s protocol.State) protocol.State {
	copied := false
	for i, e := range s.Errors {
		if len(e.Message) > protocol.MaxReplyMessage {
			if !copied { // the Source's slice is not ours to change
				s.Errors, copied = slices.Clone(s.Errors), true
			}
			s.Errors[i].Message = protocol.Truncate(e.Message, protocol.MaxReplyMessage)
		}
	}
	if f := s.LastFailure; f != nil && len(f.Message) > protocol.MaxReplyMessage {
		c := *f
		c.Message = protocol.Truncate(c.Message, protocol.MaxReplyMessage)
		s.LastFailure = &c
	}
	return s
}

// boundValue cuts a blackboard value for publishing: a long string is cut
// with a marker, and any other value whose JSON is longer than
// protocol.MaxValueBytes becomes its JSON text, cut.
func boundValue(v any) any {
	switch x := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint64, uint32, json.Number:
		return v
	case string:
		return protocol.Truncate(x, protocol.MaxValueBytes)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("…[not encodable: %v]", err)
	}
	if len(b) <= protocol.MaxValueBytes {
		return v
	}
	return protocol.Truncate(string(b), protocol.MaxValueBytes)
}
