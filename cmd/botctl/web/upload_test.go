package web

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

func readHello(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "configs", "missions", "hello.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type formField struct{ name, filename, value string }

func multipartBody(t *testing.T, fields ...formField) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		var part io.Writer
		var err error
		if f.filename != "" {
			part, err = w.CreateFormFile(f.name, f.filename)
		} else {
			part, err = w.CreateFormField(f.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(part, f.value)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), &buf
}

// sentDocument decodes the mission a mission.load carried.
func sentDocument(t *testing.T, c protocol.Command) (*missions.Document, []byte) {
	t.Helper()
	raw := c.Mission
	doc := []byte(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		doc = []byte(s)
	}
	d, err := missions.Decode(doc)
	if err != nil {
		t.Fatalf("the robot would get an undecodable mission: %v\n%s", err, doc)
	}
	return d, doc
}

const timersYAML = `format: botd/mission@1
name: tiny
main: main
trees:
  main: {type: Wait, params: {ms: 5}}
`

func TestUpload(t *testing.T) {
	hello := readHello(t)
	f := newFakeGround(online("rover-1", nil))
	_, ts := newTestServer(t, f, nil)
	url := ts.URL + "/api/robots/rover-1/mission"

	withID := `{"format":"botd/mission@1","id":"7b0c1e2f-6c1a-4a55-9d0e-1b3f1c8f5a10","name":"seven","revision":3,"main":"m","trees":{"m":{"type":"Wait","params":{"ms":5}}}}`
	for _, tc := range []struct {
		name        string
		contentType string
		body        func() (string, io.Reader)
		query       string
		start       bool
		replace     bool
		filled      bool
		wantID      string // when not filled
		wantName    string
		filename    string
		format      string
	}{
		{
			name: "multipart with defaults", start: true, filled: true, wantName: "hello", filename: "hello.json", format: "json",
			body: func() (string, io.Reader) {
				ct, b := multipartBody(t, formField{"mission", "hello.json", string(hello)})
				return ct, b
			},
		},
		{
			name: "multipart with start false and replace", replace: true, filled: true, wantName: "hello", filename: "hello.json", format: "json",
			body: func() (string, io.Reader) {
				ct, b := multipartBody(t, formField{"start", "", "false"}, formField{"replace", "", "on"}, formField{"file", "hello.json", string(hello)})
				return ct, b
			},
		},
		{
			name: "JSON with the document as YAML text", contentType: "application/json", start: true, filled: true, wantName: "tiny", format: "yaml",
			body: func() (string, io.Reader) {
				b, _ := json.Marshal(map[string]any{"mission": timersYAML, "replace": true})
				return "", bytes.NewReader(b)
			},
			replace: true,
		},
		{
			name: "JSON with a document that has an id", contentType: "application/json", wantID: "7b0c1e2f-6c1a-4a55-9d0e-1b3f1c8f5a10", wantName: "seven", format: "json",
			body: func() (string, io.Reader) {
				return "", strings.NewReader(`{"mission":` + withID + `,"start":false,"filename":"seven.json"}`)
			},
			filename: "seven.json",
		},
		{
			name: "raw BehaviorTree.CPP XML", contentType: "application/xml", query: "?start=0&filename=solo.xml", filled: true, wantName: "", filename: "solo.xml", format: "xml",
			body: func() (string, io.Reader) {
				return "", strings.NewReader(`<root BTCPP_format="4"><BehaviorTree ID="solo"><Sleep msec="5"/></BehaviorTree></root>`)
			},
		},
		{
			name: "raw YAML", contentType: "application/yaml", start: true, filled: true, wantName: "tiny", format: "yaml",
			body: func() (string, io.Reader) { return "", strings.NewReader(timersYAML) },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.commands())
			ct, body := tc.body()
			if tc.contentType != "" {
				ct = tc.contentType
			}
			status, res := post(t, url+tc.query, ct, body, nil)
			if status != 200 || !res.OK {
				t.Fatalf("%d %+v", status, res)
			}
			sent := f.commands()[before:]
			if len(sent) != 1 || sent[0].Cmd.Op != protocol.OpMissionLoad {
				t.Fatalf("sent %+v", sent)
			}
			c := sent[0].Cmd
			if c.Start != tc.start || c.Replace != tc.replace || c.Signature != "" {
				t.Fatalf("start %v replace %v signature %q", c.Start, c.Replace, c.Signature)
			}
			d, _ := sentDocument(t, c)
			if d.Name != tc.wantName && tc.wantName != "" {
				t.Fatalf("name %q", d.Name)
			}
			up := res.Upload
			if up == nil || up.IDFilled != tc.filled || up.Format != tc.format || up.Filename != tc.filename || up.Start != tc.start || up.Replace != tc.replace {
				t.Fatalf("upload info %+v", up)
			}
			if tc.filled {
				if _, err := uuid.Parse(d.ID); err != nil || up.MissionID != d.ID {
					t.Fatalf("filled id %q (info %q): %v", d.ID, up.MissionID, err)
				}
				if c.Mission[0] != '{' {
					t.Fatalf("a filled-in document is sent as botd JSON, got %.40s", c.Mission)
				}
			} else if d.ID != tc.wantID || up.MissionID != tc.wantID {
				t.Fatalf("id %q (info %q), want %q", d.ID, up.MissionID, tc.wantID)
			}
			if tc.wantID == "7b0c1e2f-6c1a-4a55-9d0e-1b3f1c8f5a10" && string(c.Mission) != withID {
				t.Fatalf("a document with an id is sent as it is, got %s", c.Mission)
			}
		})
	}
}

// An invalid mission goes to the robot as it is; its reply, with every
// problem and its path, comes back to the page.
func TestUploadShowsEveryProblem(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	_, ts := newTestServer(t, f, nil)
	bad := `{"format":"botd/mission@1","name":"bad","main":"m","trees":{"m":{"type":"Sequence","children":[{"type":"Teleport"},{"type":"Wait","params":{"ms":"soon"}}]}}}`
	f.reply = func(_ string, c protocol.Command) (protocol.Reply, error) {
		_, err := missions.Load(c.Mission, missions.Options{})
		if err == nil {
			t.Error("the invalid mission loads")
			return protocol.Reply{ID: c.ID, OK: true}, nil
		}
		e := &protocol.ReplyError{Code: protocol.ErrValidation, Message: err.Error()}
		for _, line := range strings.Split(err.Error(), "\n") {
			path, msg, _ := strings.Cut(line, ": ")
			e.Problems = append(e.Problems, protocol.ReplyProblem{Path: path, Message: msg})
		}
		return protocol.Reply{ID: c.ID, Error: e}, nil
	}
	status, res := post(t, ts.URL+"/api/robots/rover-1/mission", "application/json", strings.NewReader(`{"mission":`+bad+`}`), nil)
	if status != 200 || res.OK || res.Error == nil || res.Error.Code != protocol.ErrValidation {
		t.Fatalf("%d %+v", status, res)
	}
	if res.Upload == nil {
		t.Fatalf("upload info %+v", res.Upload)
	}
	paths := ""
	for _, p := range res.Error.Problems {
		paths += p.Path + " " + p.Message + "\n"
	}
	for _, want := range []string{"/trees/m/children/0", "/trees/m/children/1/params/ms"} {
		if !strings.Contains(paths, want) {
			t.Errorf("problems lack %s:\n%s", want, paths)
		}
	}
}

func TestUploadRefusesBadRequests(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	_, ts := newTestServer(t, f, nil)
	url := ts.URL + "/api/robots/rover-1/mission"
	huge := strings.Repeat(" ", missions.MaxDocumentBytes) + timersYAML
	for _, tc := range []struct {
		name   string
		ct     string
		body   func() (string, io.Reader)
		status int
		code   string
	}{
		{"too large raw", "text/yaml", func() (string, io.Reader) { return "", strings.NewReader(huge) }, 413, protocol.ErrTooLarge},
		{"too large file", "", func() (string, io.Reader) {
			ct, b := multipartBody(t, formField{"mission", "big.yaml", huge})
			return ct, b
		}, 413, protocol.ErrTooLarge},
		{"too large JSON", "application/json", func() (string, io.Reader) {
			b, _ := json.Marshal(map[string]string{"mission": huge})
			return "", bytes.NewReader(b)
		}, 413, protocol.ErrTooLarge},
		{"no file", "", func() (string, io.Reader) {
			ct, b := multipartBody(t, formField{"start", "", "true"})
			return ct, b
		}, 400, "BAD_REQUEST"},
		{"two files", "", func() (string, io.Reader) {
			ct, b := multipartBody(t, formField{"mission", "a.yaml", timersYAML}, formField{"mission", "b.yaml", timersYAML})
			return ct, b
		}, 400, "BAD_REQUEST"},
		{"unknown field", "", func() (string, io.Reader) {
			ct, b := multipartBody(t, formField{"mission", "a.yaml", timersYAML}, formField{"force", "", "1"})
			return ct, b
		}, 400, "BAD_REQUEST"},
		{"bad boolean", "", func() (string, io.Reader) {
			ct, b := multipartBody(t, formField{"mission", "a.yaml", timersYAML}, formField{"start", "", "maybe"})
			return ct, b
		}, 400, "BAD_REQUEST"},
		{"broken multipart", "multipart/form-data; boundary=xyz", func() (string, io.Reader) { return "", strings.NewReader("--xyz\r\nnonsense") }, 400, "BAD_REQUEST"},
		{"multipart without boundary", "multipart/form-data", func() (string, io.Reader) { return "", strings.NewReader("x") }, 400, "BAD_REQUEST"},
		{"not UTF-8", "text/plain", func() (string, io.Reader) { return "", strings.NewReader("name: \xff\xfe") }, 400, "BAD_REQUEST"},
		{"empty", "text/plain", func() (string, io.Reader) { return "", strings.NewReader(" \n") }, 400, "BAD_REQUEST"},
		{"unsupported type", "image/png", func() (string, io.Reader) { return "", strings.NewReader("x") }, 415, "BAD_REQUEST"},
		{"bad content type", "text/;;", func() (string, io.Reader) { return "", strings.NewReader("x") }, 415, "BAD_REQUEST"},
		{"JSON without mission", "application/json", func() (string, io.Reader) { return "", strings.NewReader(`{"start":true}`) }, 400, "BAD_REQUEST"},
		{"JSON mission a number", "application/json", func() (string, io.Reader) { return "", strings.NewReader(`{"mission":42}`) }, 400, "BAD_REQUEST"},
		{"JSON unknown field", "application/json", func() (string, io.Reader) { return "", strings.NewReader(`{"mission":"x","force":true}`) }, 400, "BAD_REQUEST"},
		{"JSON broken", "application/json", func() (string, io.Reader) { return "", strings.NewReader(`{"mission":`) }, 400, "BAD_REQUEST"},
		{"bad query boolean", "text/yaml", func() (string, io.Reader) { return "", strings.NewReader(timersYAML) }, 400, "BAD_REQUEST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := tc.body()
			if tc.ct != "" {
				ct = tc.ct
			}
			u := url
			if tc.name == "bad query boolean" {
				u += "?replace=perhaps"
			}
			status, res := post(t, u, ct, body, nil)
			if status != tc.status || res.OK || res.Error == nil || res.Error.Code != tc.code || res.Error.Message == "" {
				t.Fatalf("%d %+v, want %d %s", status, res, tc.status, tc.code)
			}
		})
	}
	if n := len(f.commands()); n != 0 {
		t.Fatalf("%d commands sent for bad uploads", n)
	}
	status, _ := post(t, ts.URL+"/api/robots/bad%20robot/mission", "text/yaml", strings.NewReader(timersYAML), nil)
	if status != 400 {
		t.Fatalf("bad robot: %d", status)
	}
}

// FuzzUpload: whatever a browser sends, the handler answers and never
// panics.
func FuzzUpload(f *testing.F) {
	ct, b := func() (string, []byte) {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		p, _ := w.CreateFormFile("mission", "m.yaml")
		_, _ = io.WriteString(p, timersYAML)
		_ = w.WriteField("start", "true")
		_ = w.Close()
		return w.FormDataContentType(), buf.Bytes()
	}()
	f.Add(ct, b)
	f.Add("application/json", []byte(`{"mission":"format: botd/mission@1","start":false}`))
	f.Add("application/json", []byte(`{"mission":{"format":"botd/mission@1","trees":[]}}`))
	f.Add("text/yaml", []byte(timersYAML))
	f.Add("application/xml", []byte(`<root BTCPP_format="4"><BehaviorTree ID="x"><Sleep msec="5"/></BehaviorTree></root>`))
	f.Add("multipart/form-data; boundary=b", []byte("--b\r\nContent-Disposition: form-data; name=\"mission\"\r\n\r\n{}\r\n--b--\r\n"))
	f.Add("", []byte{0xff, '{'})
	fg := newFakeGround(online("rover-1", nil))
	s, err := newServer(Options{Token: testToken}, fg)
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := loggedIn(f, s)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/api/robots/rover-1/mission", bytes.NewReader(body))
		req.Host = "127.0.0.1:8080"
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("X-Botctl", "1")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 413, 415:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var res commandResult
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
			t.Fatalf("answer is not JSON: %v", err)
		}
	})
}
