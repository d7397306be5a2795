package groot2

import (
	"crypto/rand"
	"encoding/binary"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/btcpp"
)

// treeState is what the endpoint serves for one tree: its identity (a new
// one for every mission the runner starts, so Groot2 fetches the new
// tree instead of losing the robot), its XML and the status codes last
// sent.
type treeState struct {
	tree *bt.Tree // nil for the idle placeholder
	doc  *missions.Document
	id   [16]byte
	xml  []byte
	err  error // why there is no XML (a tree too large for 16-bit uids)
	// last is each node's last code other than idle, for IdleFrom codes.
	last []byte
	// mainName is the main tree's name: its blackboard is the runner's
	// global one.
	mainName string
	// subtrees are the _fullpath names of SubTree instances.
	subtrees map[string]bool
}

// idleXML is the tree served before the runner started any mission: one
// node, so Groot2 shows a tree and keeps polling.
const idleXML = `<root BTCPP_format="4">
    <BehaviorTree ID="NoMission" _fullpath="">
        <AlwaysSuccess name="no mission loaded" _uid="1"/>
    </BehaviorTree>
    <TreeNodesModel>
        <Action ID="AlwaysSuccess"/>
    </TreeNodesModel>
</root>
`

func newIdentity() [16]byte {
	var id [16]byte
	_, _ = rand.Read(id[:])
	// A version 4 UUID, as BT.CPP makes it.
	id[6] = id[6]&0x0F | 0x40
	id[8] = id[8]&0x3F | 0x80
	return id
}

func idleState() *treeState {
	return &treeState{id: newIdentity(), xml: []byte(idleXML), last: make([]byte, 1), mainName: "NoMission"}
}

func newTreeState(doc *missions.Document, t *bt.Tree, reg *bt.Registry) *treeState {
	s := &treeState{tree: t, doc: doc, id: newIdentity(), last: make([]byte, t.Len()), subtrees: map[string]bool{}}
	if doc != nil {
		s.mainName = doc.Main
	}
	s.xml, s.err = btcpp.ExportInstances(doc, t, reg)
	if s.err == nil {
		s.subtrees = subtreePaths(s.xml)
	}
	return s
}

// statusReply is a STATUS reply body: 3 bytes a node (uid little-endian,
// code), in uid order; letters nil for the idle placeholder.
func (s *treeState) statusReply(letters []byte) []byte {
	n := len(s.last)
	out := make([]byte, 0, 3*n)
	for i := range n {
		code := StatusIdle
		if i < len(letters) {
			code = int(statusCode(letters[i]))
		}
		switch {
		case code != StatusIdle:
			s.last[i] = byte(code)
		case s.last[i] != 0:
			code = IdleFrom + int(s.last[i])
		}
		out = binary.LittleEndian.AppendUint16(out, uint16(i+1))
		out = append(out, byte(code))
	}
	return out
}
