package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/botd-project/botd/missions"
	// The upload reads every format botd takes (a QGroundControl .plan
	// gets its id here like any other), whatever program serves the page.
	_ "github.com/botd-project/botd/missions/formats"
	"github.com/botd-project/botd/telemetry/protocol"
)

// uploadRequest is a mission upload, whatever the body's form.
type uploadRequest struct {
	doc      []byte
	filename string
	start    bool
	replace  bool
}

// uploadInfo tells the page what was sent.
type uploadInfo struct {
	Filename  string `json:"filename,omitempty"`
	Bytes     int    `json:"bytes"`
	Format    string `json:"format"` // json, yaml or xml, from the first character
	MissionID string `json:"mission_id,omitempty"`
	// IDFilled says the document had no id and the dashboard gave it one
	// (the document is then sent as botd JSON).
	IDFilled bool `json:"id_filled"`
	Start    bool `json:"start"`
	Replace  bool `json:"replace"`
}

// errTooLarge marks a document over missions.MaxDocumentBytes.
var errTooLarge = fmt.Errorf("the mission is larger than %d bytes", missions.MaxDocumentBytes)

// upload is POST /api/robots/{robot}/mission: mission.load with the
// document of the body, which is one of
//
//   - multipart/form-data with a file part "mission" (or "file") and
//     optional fields start and replace;
//   - application/json {"mission": <document object or text>, "start",
//     "replace", "filename"};
//   - the document itself (YAML, XML, JSON or plain text), with start and
//     replace as query parameters.
//
// start defaults to true, replace to false. A document without an id gets
// a new one. On a robot that requires signed commands, the dashboard signs
// the command (not the document) with its operator's key.
func (s *server) upload(w http.ResponseWriter, r *http.Request) {
	robot := r.PathValue("robot")
	if err := protocol.ValidRobotID(robot); err != nil {
		writeError(w, http.StatusBadRequest, "BAD_ROBOT", err.Error())
		return
	}
	u, status, err := parseUpload(w, r)
	if err != nil {
		code := "BAD_REQUEST"
		if status == http.StatusRequestEntityTooLarge {
			code = protocol.ErrTooLarge
		}
		writeError(w, status, code, err.Error())
		return
	}
	doc, info := prepareMission(u)
	c := protocol.Command{Op: protocol.OpMissionLoad, Mission: missionJSON(doc),
		Start: u.start, Replace: u.replace}
	s.send(w, r, robot, c, info)
}

func parseUpload(w http.ResponseWriter, r *http.Request) (uploadRequest, int, error) {
	u := uploadRequest{start: true}
	body := http.MaxBytesReader(w, r.Body, maxUploadBody)
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if ct == "" {
		mt, err = "", nil
	}
	if err != nil {
		return u, http.StatusUnsupportedMediaType, fmt.Errorf("content type %q: %w", ct, err)
	}
	switch mt {
	case "multipart/form-data":
		err = u.readMultipart(body, params["boundary"])
	case "application/json":
		err = u.readJSON(body)
	case "", "application/octet-stream", "text/plain", "application/yaml", "application/x-yaml",
		"text/yaml", "text/x-yaml", "application/xml", "text/xml":
		err = u.readRaw(body, r)
	default:
		return u, http.StatusUnsupportedMediaType, fmt.Errorf("unsupported content type %q: send multipart/form-data, application/json or the document itself", mt)
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.Is(err, errTooLarge) || errors.As(err, &tooBig) {
			return u, http.StatusRequestEntityTooLarge, errTooLarge
		}
		return u, http.StatusBadRequest, err
	}
	if len(bytes.TrimSpace(u.doc)) == 0 {
		return u, http.StatusBadRequest, errors.New("the mission document is empty")
	}
	if !utf8.Valid(u.doc) {
		return u, http.StatusBadRequest, errors.New("the mission document is not UTF-8 text")
	}
	return u, 0, nil
}

func (u *uploadRequest) readMultipart(body io.Reader, boundary string) error {
	if boundary == "" {
		return errors.New("multipart body without a boundary")
	}
	mr := multipart.NewReader(body, boundary)
	found := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("multipart body: %w", err)
		}
		name := part.FormName()
		switch name {
		case "mission", "file":
			if found {
				return errors.New("more than one mission file")
			}
			found = true
			u.filename = part.FileName()
			if u.doc, err = readLimited(part, missions.MaxDocumentBytes); err != nil {
				return err
			}
		case "start", "replace", "filename":
			b, err := readLimited(part, 8<<10)
			if err != nil {
				return fmt.Errorf("field %s: %w", name, err)
			}
			if err := u.setField(name, string(b)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown field %q: want mission, start, replace", name)
		}
	}
	if !found {
		return errors.New(`no mission file: send it as the multipart field "mission"`)
	}
	return nil
}

func (u *uploadRequest) setField(name, value string) error {
	value = strings.TrimSpace(value)
	switch name {
	case "start", "replace":
		b, err := parseBool(value)
		if err != nil {
			return fmt.Errorf("field %s: %w", name, err)
		}
		if name == "start" {
			u.start = b
		} else {
			u.replace = b
		}
	case "filename":
		u.filename = value
	}
	return nil
}

func (u *uploadRequest) readJSON(body io.Reader) error {
	var j struct {
		Mission  json.RawMessage `json:"mission"`
		Start    *bool           `json:"start"`
		Replace  bool            `json:"replace"`
		Filename string          `json:"filename"`
	}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("JSON body: %w", err)
	}
	if dec.More() {
		return errors.New("JSON body: more than one value")
	}
	raw := bytes.TrimSpace(j.Mission)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return errors.New(`JSON body without "mission"`)
	case raw[0] == '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return fmt.Errorf("mission: %w", err)
		}
		u.doc = []byte(text)
	case raw[0] == '{' || raw[0] == '[':
		u.doc = raw
	default:
		return errors.New("mission: want a document (JSON object) or its text (string)")
	}
	if len(u.doc) > missions.MaxDocumentBytes {
		return errTooLarge
	}
	if j.Start != nil {
		u.start = *j.Start
	}
	u.replace, u.filename = j.Replace, j.Filename
	return nil
}

func (u *uploadRequest) readRaw(body io.Reader, r *http.Request) error {
	var err error
	if u.doc, err = readLimited(body, missions.MaxDocumentBytes); err != nil {
		return err
	}
	q := r.URL.Query()
	for _, name := range []string{"start", "replace", "filename", "key_id"} {
		if q.Has(name) {
			if err := u.setField(name, q.Get(name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// readLimited reads r, failing with errTooLarge past limit bytes.
func readLimited(r io.Reader, limit int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "on", "yes":
		return true, nil
	case "off", "no", "":
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("want true or false, got %q", s)
	}
	return b, nil
}

// prepareMission fills in the id of a document that has none, as botctl
// does (MISSIONS.md): the document is decoded, given a new UUID and sent
// as botd JSON. A document that does not decode, already has an id or is
// signed is sent as it is: the robot's reply lists every problem.
func prepareMission(u uploadRequest) ([]byte, *uploadInfo) {
	info := &uploadInfo{Filename: u.filename, Bytes: len(u.doc), Format: formatOf(u.doc), Start: u.start, Replace: u.replace}
	d, err := missions.Decode(u.doc)
	if err != nil {
		return u.doc, info
	}
	info.MissionID = d.ID
	if d.ID != "" {
		return u.doc, info
	}
	d.ID = uuid.NewString()
	out, err := d.JSON()
	if err != nil {
		info.MissionID = ""
		return u.doc, info
	}
	info.MissionID, info.IDFilled = d.ID, true
	return out, info
}

func formatOf(doc []byte) string {
	t := bytes.TrimLeft(bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(t) == 0:
		return "empty"
	case t[0] == '<':
		return "xml"
	case t[0] == '{' || t[0] == '[':
		return "json"
	}
	return "yaml"
}

// missionJSON is the command's mission member: a JSON document as it is,
// anything else as a JSON string.
func missionJSON(doc []byte) json.RawMessage {
	t := bytes.TrimSpace(doc)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(string(doc)) // valid UTF-8: parseUpload checked
	return b
}
