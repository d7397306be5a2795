package vda5050

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The official 2.0.0 schemas, by the topic they describe.
var schemaFiles = map[string]string{
	"order": "order.schema", "instantActions": "instantActions.schema", "state": "state.schema",
	"visualization": "visualization.schema", "connection": "connection.schema", "factsheet": "factsheet.json",
}

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

func loadSchemas(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	schemasOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		schemas = map[string]*jsonschema.Schema{}
		for topic, file := range schemaFiles {
			data, err := os.ReadFile(filepath.Join("testdata", "schemas-2.0.0", file))
			if err != nil {
				schemasErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				schemasErr = err
				return
			}
			url := "file:///vda5050/" + file
			if err := c.AddResource(url, doc); err != nil {
				schemasErr = err
				return
			}
			if schemas[topic], err = c.Compile(url); err != nil {
				schemasErr = err
				return
			}
		}
	})
	if schemasErr != nil {
		t.Fatal(schemasErr)
	}
	return schemas
}

// validate checks one message botd sent on a VDA 5050 topic against the
// official schema of that topic.
func validate(t testing.TB, topic string, payload []byte) {
	t.Helper()
	kind := topic[strings.LastIndexByte(topic, '/')+1:]
	s := loadSchemas(t)[kind]
	if s == nil {
		t.Errorf("%s: no schema for this topic", topic)
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		t.Errorf("%s: not JSON: %v", topic, err)
		return
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s: does not validate against %s: %v\n%s", topic, schemaFiles[kind], err, payload)
	}
}

// The schemas refuse what they must: the test is not vacuous.
func TestSchemasRefuse(t *testing.T) {
	s := loadSchemas(t)
	for _, c := range []struct{ topic, doc string }{
		{"state", `{"headerId":1}`},
		{"connection", `{"headerId":0,"timestamp":"2026-01-01T00:00:00Z","version":"2.0.0","manufacturer":"m","serialNumber":"s","connectionState":"GONE"}`},
		{"state", stateWithNodePosition(false)},
	} {
		var v any
		_ = json.Unmarshal([]byte(c.doc), &v)
		if err := s[c.topic].Validate(v); err == nil {
			t.Errorf("%s %s: validated", c.topic, c.doc)
		}
	}
	var v any
	_ = json.Unmarshal([]byte(stateWithNodePosition(true)), &v)
	if err := s["state"].Validate(v); err != nil {
		t.Errorf("a state with theta: %v", err)
	}
}

// stateWithNodePosition is a minimal state whose node state has a
// position, with or without theta (required in a state, unlike an order).
func stateWithNodePosition(theta bool) string {
	pos := `{"x":1,"y":2,"mapId":"m"}`
	if theta {
		pos = `{"x":1,"y":2,"theta":0,"mapId":"m"}`
	}
	return `{"headerId":0,"timestamp":"2026-01-01T00:00:00.000Z","version":"2.0.0","manufacturer":"m","serialNumber":"s",
	"orderId":"o","orderUpdateId":0,"lastNodeId":"a","lastNodeSequenceId":0,"driving":false,"operatingMode":"AUTOMATIC",
	"nodeStates":[{"nodeId":"b","sequenceId":2,"released":true,"nodePosition":` + pos + `}],"edgeStates":[],"actionStates":[],
	"batteryState":{"batteryCharge":50,"charging":false},"errors":[],"safetyState":{"eStop":"NONE","fieldViolation":false}}`
}
