package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// A retained OFFLINE on a robot's connection topic is a message any client
// of an open broker can publish. The e-stops still go: the robot, running
// all along, answers from ESTOP, and botctl warns that it looked offline.
func TestEStopSentDespiteAForgedOffline(t *testing.T) {
	d := startBotd(t)
	waitOnline(t, d, "rover-1")
	c, err := transport.Dial(transport.Options{Brokers: []string{d.url}, ClientID: "forger"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitFor(t, 10*time.Second, "forger connected", c.IsUp, nil)
	forged, _ := json.Marshal(protocol.ConnectionMsg{Header: protocol.Header{Robot: "rover-1", TS: time.Now().UTC().Format(time.RFC3339)}, State: protocol.ConnOffline})
	topics, _ := protocol.NewTopics("botd/v1", "rover-1")
	if err := c.Publish(topics.Connection(), 1, true, forged); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "rover-1 listed OFFLINE", func() bool {
		r := botctl(t, "robots", "--json", "--broker", d.url)
		var rs []robotJSON
		json.Unmarshal([]byte(r.stdout), &rs)
		return len(rs) == 1 && rs[0].Connection == protocol.ConnOffline
	}, d)

	b := []string{"--broker", d.url, "--timeout", "15s"}
	r := botctl(t, append([]string{"estop", "rover-1"}, b...)...)
	expect(t, r, exitOK, "E-STOP", "warning: robot rover-1 is offline (OFFLINE", "sending the e-stop anyway")
	modeIs(t, d, "rover-1", protocol.ModeEStop)
	// With no name: the only robot heard.
	expect(t, botctl(t, append([]string{"estop"}, b...)...), exitOK, "E-STOP", "the only robot heard")
	for _, sel := range [][]string{{"--all"}, {"--robots", "rover-*"}} {
		r := botctl(t, append(append([]string{"estop"}, sel...), b...)...)
		expect(t, r, exitOK, "E-STOP sent to 1 robot at once: 1 answered", "warning: rover-1 said OFFLINE", "sending the e-stop anyway")
		if row := tableRows(r.stdout)["rover-1"]; !strings.HasPrefix(row, "OFFLINE ESTOP ") {
			t.Errorf("%v: rover-1 %q", sel, row)
		}
	}
}
