package groot2

import "encoding/binary"

// ProtocolID is the Groot2 monitor protocol version botd speaks
// (BehaviorTree.CPP 4's kProtocolID).
const ProtocolID = 2

// Request types (the second byte of a request header).
const (
	ReqFullTree        = 'T'
	ReqStatus          = 'S'
	ReqBlackboard      = 'B'
	ReqHookInsert      = 'I'
	ReqHookRemove      = 'R'
	ReqBreakpointNote  = 'N' // published, never requested
	ReqBreakpointUnlck = 'U'
	ReqHooksDump       = 'D'
	ReqRemoveAllHooks  = 'A'
	ReqDisableAllHooks = 'X'
	ReqToggleRecording = 'r'
	ReqGetTransitions  = 't'
)

// RequestHeaderSize and ReplyHeaderSize are the sizes of the first part
// of a request (protocol, type, a little-endian request id) and of a
// reply (the request header echoed, then the 16-byte tree identity).
const (
	RequestHeaderSize = 6
	ReplyHeaderSize   = RequestHeaderSize + 16
)

// BT.CPP's node status codes, as STATUS replies, transitions and .btlog
// files carry them; a node reset to idle is IdleFrom + its previous code
// in a STATUS reply.
const (
	StatusIdle    = 0
	StatusRunning = 1
	StatusSuccess = 2
	StatusFailure = 3
	StatusSkipped = 4
	IdleFrom      = 10
)

// RequestHeader is the first part of a request.
type RequestHeader struct {
	Protocol byte
	Type     byte
	ID       uint32
}

// ParseRequestHeader reads the first part of a request (ok false when it
// is not 6 bytes long).
func ParseRequestHeader(b []byte) (RequestHeader, bool) {
	if len(b) != RequestHeaderSize {
		return RequestHeader{}, false
	}
	return RequestHeader{Protocol: b[0], Type: b[1], ID: binary.LittleEndian.Uint32(b[2:])}, true
}

// replyHeader is the first part of a reply to h: protocol 2 whatever the
// request said (as BT.CPP answers), the type and id echoed, the tree
// identity.
func replyHeader(h RequestHeader, tree [16]byte) []byte {
	b := make([]byte, ReplyHeaderSize)
	b[0] = ProtocolID
	b[1] = h.Type
	binary.LittleEndian.PutUint32(b[2:], h.ID)
	copy(b[RequestHeaderSize:], tree[:])
	return b
}

// errorReply is BT.CPP's error reply: two parts, "error" and a message.
func errorReply(msg string) [][]byte {
	return [][]byte{[]byte("error"), []byte(msg)}
}

// statusCode is BT.CPP's code of a botd status letter. botd's ERROR is a
// FAILURE to BT.CPP.
func statusCode(letter byte) byte {
	switch letter {
	case 'R':
		return StatusRunning
	case 'S':
		return StatusSuccess
	case 'F', 'E':
		return StatusFailure
	}
	return StatusIdle
}

// appendTransition appends one 9-byte transition record: microseconds
// (6 bytes, little-endian), node uid (2 bytes), status code.
func appendTransition(b []byte, usec int64, uid uint16, code byte) []byte {
	if usec < 0 {
		usec = 0
	}
	u := uint64(usec)
	b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40))
	return append(b, byte(uid), byte(uid>>8), code)
}
