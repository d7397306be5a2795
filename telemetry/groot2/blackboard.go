package groot2

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/botd-project/botd/telemetry/protocol"
)

// blackboardReply is a BLACKBOARD reply body: MessagePack of a map from
// each requested blackboard name the tree has to its entries, as BT.CPP
// writes it (names it does not know are left out). The main tree's
// blackboard is the runner's global one; a SubTree instance (named by its
// _fullpath, as Groot2 asks for it) has an empty one, since botd's
// SubTrees read and write the mission's keys.
func blackboardReply(s *treeState, names string, values []protocol.BlackboardValue) ([]byte, error) {
	out := map[string]map[string]any{}
	for _, name := range strings.Split(names, ";") {
		switch {
		case name == "":
		case name == s.mainName:
			m := make(map[string]any, len(values))
			for _, v := range values {
				m[v.Key] = plain(v.Value, 0)
			}
			out[name] = m
		case s.subtrees[name]:
			out[name] = map[string]any{}
		}
	}
	var b bytes.Buffer
	enc := msgpack.NewEncoder(&b)
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true) // as nlohmann::json writes MessagePack
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encoding the blackboard: %w", err)
	}
	return b.Bytes(), nil
}

// plain turns a blackboard value into what MessagePack writes as BT.CPP's
// JSON export would: whole numbers as integers, lists and maps of plain
// values, anything else as its text.
func plain(v any, depth int) any {
	if depth > 16 {
		return fmt.Sprint(v)
	}
	switch x := v.(type) {
	case nil, bool, string, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return x
	case float32:
		return plain(float64(x), depth)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e, depth+1)
		}
		return out
	case []string, []float64, []int, []bool:
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e, depth+1)
		}
		return out
	}
	return fmt.Sprint(v)
}

// subtreePaths lists the _fullpath of every SubTree instance of a
// FULLTREE document.
func subtreePaths(doc []byte) map[string]bool {
	out := map[string]bool{}
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "BehaviorTree" {
			for _, a := range se.Attr {
				if a.Name.Local == "_fullpath" && a.Value != "" {
					out[a.Value] = true
				}
			}
		}
	}
}
