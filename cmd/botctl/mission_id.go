package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/plan"

	"github.com/botd-project/botd/telemetry/protocol"
)

// importedFormat names the format of a file that has no place for a
// mission id or revision (a BehaviorTree.CPP XML file, a Behavior3 file,
// a QGroundControl or Mission Planner plan), or is "" for a botd mission
// (JSON or YAML), which has both.
func importedFormat(data []byte) string {
	body := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case plan.IsPlan(body):
		return "QGroundControl or Mission Planner plan"
	case len(body) > 0 && body[0] == '<':
		return "BehaviorTree.CPP XML"
	case len(body) > 0 && (body[0] == '{' || body[0] == '['):
		var top map[string]any
		if json.Unmarshal(body, &top) == nil && plan.IsPlanObject(top["fileType"]) {
			return "QGroundControl or Mission Planner plan"
		}
		if top["format"] == nil {
			return "Behavior3"
		}
	}
	return ""
}

// derivedID is the id botd gives a mission without one by its name: the
// daemon gives its configured mission the same, so sending that file
// updates the configured mission rather than storing a second one.
func derivedID(name string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("botd:mission:"+name)).String()
}

// identify gives the mission its id and revision: --id and --revision
// when given, else the file's; a file without an id gets one (said on
// stderr, with how to keep it). It returns what to send: the file as it
// is, or the document as botd JSON when botctl changed it.
func (c *missionCmd) identify(mf *missionFile) (payload json.RawMessage, generated bool, err error) {
	format := importedFormat(mf.data)
	changed := false
	if c.revision >= 0 {
		if format == "" {
			return nil, false, usageError("--revision is for a file that cannot hold one (BehaviorTree.CPP, Behavior3, a plan): set \"revision\" in %s", mf.path)
		}
		mf.doc.Revision, changed = c.revision, true
	}
	switch {
	case c.missionID != "" && mf.doc.ID != "" && c.missionID != mf.doc.ID:
		return nil, false, usageError("--id %s: %s has the id %s", c.missionID, mf.path, mf.doc.ID)
	case c.missionID != "":
		if _, err := uuid.Parse(c.missionID); err != nil {
			return nil, false, usageError("--id %q: a mission id is a UUID (want the form %s)", c.missionID, uuid.NewString())
		}
		mf.doc.ID, changed = c.missionID, true
	case mf.doc.ID != "":
	case format != "":
		mf.doc.ID, changed, generated = derivedID(missionName(mf.doc)), true, true
		fmt.Fprintf(c.stderr, "note: %s is a %s file, which has no place for a mission id: sending it as %s, derived from its name %q "+
			"(sending it again updates this mission: with --revision N above the stored one once it changed; --id ID names another)\n",
			mf.path, format, mf.doc.ID, missionName(mf.doc))
	default:
		mf.doc.ID, changed, generated = uuid.NewString(), true, true
		fmt.Fprintf(c.stderr, "note: %s has no mission id; sending it as %s (add \"id\": %q to the file to update this mission later)\n",
			mf.path, mf.doc.ID, mf.doc.ID)
	}
	if format != "" {
		if d := c.resolved(mf); d != nil {
			mf.doc, changed = d, true
		}
	}
	if !changed {
		return mf.payload(), generated, nil
	}
	js, err := mf.doc.JSON()
	if err != nil {
		return nil, false, fail(exitRefused, "%s: %v", mf.path, err)
	}
	return json.RawMessage(js), generated, nil
}

// resolved is what to send for an imported file with nodes that load but
// cannot run as written (BehaviorTree.CPP loads a delay_msec="10,000" or
// a WhileDoElse of four children and throws when the node is ticked):
// botd's own form of the file with each of those nodes as the Fault it
// runs as, which the robot loads strictly; botd check says the same of
// the file, and each node is said on stderr. nil when the file has none,
// or does not load here: the robot then says why, with its own node
// types.
func (c *missionCmd) resolved(mf *missionFile) *missions.Document {
	m, err := mf.doc.Compile(missions.Options{})
	if err != nil || len(m.Notes) == 0 {
		return nil
	}
	d, err := m.Resolved()
	if err != nil {
		return nil
	}
	for _, n := range m.Notes {
		fmt.Fprintf(c.stderr, "note: %s: %s\n", mf.path, oneLine(missions.ProblemText(n)))
	}
	return d
}

// revisionHint says how to update a mission a file cannot give a new
// revision: the robot keeps the stored one and refuses the same or an
// older revision with other content.
func revisionHint(mf *missionFile, e *protocol.ReplyError) string {
	format := importedFormat(mf.data)
	if e == nil || format == "" || (e.Code != protocol.ErrSameRevisionDiff && e.Code != protocol.ErrOutdatedRevision) {
		return ""
	}
	return fmt.Sprintf("hint: a %s file has no revision: send it with --revision N, N above the revision the robot has stored (botctl status shows the current mission's)", format)
}
