package b3

import "github.com/botd-project/botd/missions"

// The Behavior3 formats register themselves with missions: a program
// reads and writes them when it links this package (missions/formats
// does, for botd and botctl).
func init() {
	missions.RegisterFormat(missions.Codec{Name: "b3", Doc: "a Behavior3 Editor 0.3 project",
		Detect: func(s *missions.Source) bool { o := s.Object(); return o != nil && isB3(o) },
		Import: func(s *missions.Source) *missions.Document { return decodeB3(s.Object(), s.Problems()) },
		Export: func(d *missions.Document, _ missions.ExportOptions) ([]byte, error) { return ExportB3(d) }})
	missions.RegisterFormat(missions.Codec{Name: "b3tree", Doc: "the current Behavior3 editor's tree file",
		Detect: func(s *missions.Source) bool {
			o := s.Object()
			return o != nil && (isB3Tree(o) || isB3Workspace(o))
		},
		Import: func(s *missions.Source) *missions.Document {
			o := s.Object()
			return decodeB3Tree(o, s.File, !isB3Tree(o), s.Problems())
		},
		Export: func(d *missions.Document, _ missions.ExportOptions) ([]byte, error) { return ExportB3Tree(d) }})
}
