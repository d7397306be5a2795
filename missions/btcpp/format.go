package btcpp

import (
	"os"

	"github.com/botd-project/botd/missions"
)

// The BehaviorTree.CPP format registers itself with missions when this
// package is linked (missions/formats links it for botd and botctl):
// missions.Decode then reads a document that starts with '<' as BT.CPP
// XML, missions.DecodeFile and LoadFile read the files it includes,
// LoadLibrary reads a folder's .xml files, LoadSubstitutionFile reads
// BT.CPP's substitution JSON, and `botd export -format btcpp` writes one. What the import keeps of the file (where each node
// is, the files it included, its <TreeNodesModel>) is the document's
// missions.Origin: problems name lines, nodes BT.CPP would load and fail
// only when they run stand in as Faults, an export writes the model back,
// and a library's SubTree models reach the files that call its trees.
func init() {
	missions.RegisterFormat(missions.Codec{Name: "btcpp", Doc: "BehaviorTree.CPP v4 XML (Groot2)",
		Detect: func(s *missions.Source) bool { return s.Body[0] == '<' },
		Import: func(s *missions.Source) *missions.Document {
			var read func(string) ([]byte, error)
			if s.File != "" {
				read = os.ReadFile
			}
			return decodeBTCPPFile(s.Data, s.File, read, s.Library, s.Problems())
		},
		Export: func(d *missions.Document, o missions.ExportOptions) ([]byte, error) { return Export(d, o.Registry) },
		Rules:  readRules,
		Exts:   []string{".xml"}})
}
