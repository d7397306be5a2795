package telemetry

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// utf16Bytes encodes s as UTF-16, with its byte-order mark when bom.
func utf16Bytes(s string, bigEndian, bom bool) []byte {
	var order binary.AppendByteOrder = binary.LittleEndian
	if bigEndian {
		order = binary.BigEndian
	}
	var b []byte
	u := utf16.Encode([]rune(s))
	if bom {
		u = append([]uint16{0xFEFF}, u...)
	}
	for _, c := range u {
		b = order.AppendUint16(b, c)
	}
	return b
}

func TestUTF8Text(t *testing.T) {
	const js = ` {"id":"é1","op":"estop"}`
	for _, c := range []struct {
		in  []byte
		enc string
	}{
		{[]byte(js), ""},
		{append([]byte{0xEF, 0xBB, 0xBF}, js...), encUTF8BOM},
		{utf16Bytes(js, false, true), encUTF16LE},
		{utf16Bytes(js, true, true), encUTF16BE},
		{utf16Bytes(js, false, false), encUTF16LE},
		{utf16Bytes(js, true, false), encUTF16BE},
	} {
		got, enc := utf8Text(c.in)
		if enc != c.enc || string(got) != js {
			t.Errorf("%x: %q as %q; want %q", c.in, got, enc, c.enc)
		}
	}
	if got, enc := utf8Text([]byte("x")); enc != "" || string(got) != "x" {
		t.Errorf("one byte: %q %q", got, enc)
	}
}

// Anything on cmd that could be an e-stop is one: a UTF-8 byte-order mark
// before the JSON, or UTF-16 (either byte order, with or without its
// mark), as a broken one is. Each engages, and is answered ok under its
// id with the encoding in result.malformed. Another command so sent is
// refused under its id, never executed.
func TestEStopInAnyEncoding(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply(), tp.EStop())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	estop := func(id string) string { return `{"id":"` + id + `","op":"estop"}` }
	cases := []struct {
		id, enc string
		payload []byte
	}{
		{"bom", encUTF8BOM, append([]byte{0xEF, 0xBB, 0xBF}, estop("bom")...)},
		{"le-bom", encUTF16LE, utf16Bytes(estop("le-bom"), false, true)},
		{"be-bom", encUTF16BE, utf16Bytes(estop("be-bom"), true, true)},
		{"le", encUTF16LE, utf16Bytes(estop("le"), false, false)},
		{"be", encUTF16BE, utf16Bytes("\n"+estop("be"), true, false)},
		{"le-broken", encUTF16LE, utf16Bytes(`{"id":"le-broken","op":"estop"`, false, true)},
	}
	for _, c := range cases {
		before := h.cmds.ops(protocol.OpEStop)
		if err := pub.Publish(tp.Cmd(), 1, false, c.payload); err != nil {
			t.Fatal(err)
		}
		mqtttest.Eventually(t, "e-stop "+c.id+" engaged", func() bool { return h.cmds.ops(protocol.OpEStop) > before })
		r := replyByID(t, watch, tp.Reply(), c.id)
		if mal, _ := r.Result["malformed"].(string); !r.OK || !strings.Contains(mal, c.enc) {
			t.Errorf("%s: reply ok %v result %v error %+v", c.id, r.OK, r.Result, r.Error)
		}
	}
	// On the estop topic, any payload engages; the reply finds the id
	// in UTF-16 too.
	if err := pub.Publish(tp.EStop(), 1, false, utf16Bytes(estop("topic-le"), false, true)); err != nil {
		t.Fatal(err)
	}
	if r := replyByID(t, watch, tp.Reply(), "topic-le"); !r.OK {
		t.Errorf("estop topic: %+v", r.Error)
	}

	pause := utf16Bytes(`{"id":"p1","op":"mission.pause"}`, false, true)
	if err := pub.Publish(tp.Cmd(), 1, false, pause); err != nil {
		t.Fatal(err)
	}
	if r := replyByID(t, watch, tp.Reply(), "p1"); r.OK || r.Error.Code != protocol.ErrInvalidJSON || !strings.Contains(r.Error.Message, encUTF16LE) {
		t.Errorf("a UTF-16 mission.pause: %+v", r.Error)
	}
	if n := h.cmds.ops(protocol.OpMissionPause); n != 0 {
		t.Errorf("the UTF-16 mission.pause was executed")
	}
}
