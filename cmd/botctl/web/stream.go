package web

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Stream pacing.
const (
	robotsEvery    = time.Second      // robot list refresh
	keepAliveEvery = 15 * time.Second // comment line so proxies keep the stream
	writeTimeout   = 10 * time.Second // a tab that takes longer is gone
	// silentAfter marks an ONLINE robot whose state stopped coming (it
	// is published at least once a second).
	silentAfter = 3500 * time.Millisecond
)

// helloFrame opens every stream.
type helloFrame struct {
	Robot     string      `json:"robot"`     // the robot this stream watches ("" for none)
	Preselect string      `json:"preselect"` // Options.Robot
	Time      string      `json:"time"`
	Broker    brokerFrame `json:"broker"`
}

// brokerFrame is the dashboard's own link to the broker (also sent alone,
// as "broker", when it changes).
type brokerFrame struct {
	URL string `json:"url,omitempty"`
	Up  bool   `json:"up"`
}

// robotSummary is one entry of the robot list.
type robotSummary struct {
	ID            string   `json:"id"`
	Connection    string   `json:"connection"` // ONLINE, OFFLINE, CONNECTION_BROKEN or ""
	Online        bool     `json:"online"`
	Silent        bool     `json:"silent,omitempty"` // ONLINE but no state for a while
	Mode          string   `json:"mode,omitempty"`
	RequestedMode string   `json:"requested_mode,omitempty"`
	Mission       string   `json:"mission,omitempty"`
	MissionStatus string   `json:"mission_status,omitempty"`
	EStop         bool     `json:"estop,omitempty"`
	Failsafe      bool     `json:"failsafe,omitempty"`
	Battery       *float64 `json:"battery,omitempty"` // percent
	Voltage       *float64 `json:"voltage,omitempty"`
	Errors        int      `json:"errors,omitempty"`
	LastSeen      string   `json:"last_seen,omitempty"`
}

func summarize(robots []ground.RobotInfo, now time.Time) []robotSummary {
	out := make([]robotSummary, 0, len(robots))
	for _, r := range robots {
		s := robotSummary{ID: r.ID, Connection: r.Connection, Online: r.Connection == protocol.ConnOnline}
		if !r.LastSeen.IsZero() {
			s.LastSeen = r.LastSeen.UTC().Format(time.RFC3339)
			s.Silent = s.Online && now.Sub(r.LastSeen) > silentAfter
		}
		if st := r.State; st != nil {
			s.Mode, s.RequestedMode, s.EStop, s.Failsafe = st.Mode, st.RequestedMode, st.EStop, st.Failsafe.Active
			s.Errors = len(st.Errors)
			if m := st.Mission; m != nil {
				s.Mission, s.MissionStatus = m.Name, m.Status
			}
			if b := st.Battery; b != nil {
				p, v := round1(b.Percent), math.Round(b.Voltage*100)/100
				s.Battery, s.Voltage = &p, &v
			}
		}
		out = append(out, s)
	}
	return out
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

func (s *server) listRobots(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"robots": summarize(s.g.Robots(), s.now())})
}

func (s *server) robotSnapshot(w http.ResponseWriter, r *http.Request) {
	robot := r.PathValue("robot")
	if err := protocol.ValidRobotID(robot); err != nil {
		writeError(w, http.StatusBadRequest, "BAD_ROBOT", err.Error())
		return
	}
	snap, ok := s.hub.snapshot(robot)
	if !ok {
		writeError(w, http.StatusNotFound, "NOT_WATCHED", "no dashboard tab watches "+robot+" (open /api/stream?robot="+robot+")")
		return
	}
	writeJSON(w, http.StatusOK, snap)
}

// stream is GET /api/stream?robot=ID: server-sent events. Without a robot
// it carries only the robot list.
func (s *server) stream(w http.ResponseWriter, r *http.Request) {
	robot := r.URL.Query().Get("robot")
	// list=0: the page has the fleet stream (/api/fleet) for the list.
	withList := r.URL.Query().Get("list") != "0"
	if robot != "" {
		if err := protocol.ValidRobotID(robot); err != nil {
			writeError(w, http.StatusBadRequest, "BAD_ROBOT", err.Error())
			return
		}
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	var buf bytes.Buffer
	send := func() bool {
		if buf.Len() == 0 {
			return true
		}
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		_, err := w.Write(buf.Bytes())
		buf.Reset()
		if err == nil {
			err = rc.Flush()
		}
		return err == nil
	}
	add := func(event string, data any) {
		if f, err := frame(event, data); err == nil {
			buf.Write(f)
		}
	}
	buf.WriteString("retry: 2000\n\n")
	broker := brokerFrame{URL: s.opts.Broker, Up: s.g.Up()}
	add("hello", helloFrame{Robot: robot, Preselect: s.opts.Robot, Time: protocol.FormatTS(s.now()), Broker: broker})
	var lastRobots []byte
	if withList {
		lastRobots, _ = json.Marshal(summarize(s.g.Robots(), s.now()))
		buf.WriteString("event: robots\ndata: ")
		buf.Write(lastRobots)
		buf.WriteString("\n\n")
	}
	if !send() {
		return
	}

	var sub *subscriber
	gone := make(<-chan struct{}) // never closed without a robot
	var frames <-chan []byte
	if robot != "" {
		var snap [][]byte
		var err error
		sub, snap, err = s.hub.subscribe(r.Context(), robot)
		if err != nil {
			add("fatal", map[string]string{"error": err.Error()})
			send()
			return
		}
		defer s.hub.unsubscribe(robot, sub)
		gone, frames = sub.gone, sub.ch
		for _, f := range snap {
			buf.Write(f)
		}
		if !send() {
			return
		}
	}

	robotsTick := time.NewTicker(robotsEvery)
	defer robotsTick.Stop()
	lastWrite := time.Now()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-gone:
			return // dropped as too slow, or the dashboard is closing
		case f := <-frames:
			sub.queued.Add(-int64(len(f)))
			buf.Write(f)
			// Take what else is queued, so a burst is one write.
			for more := true; more && buf.Len() < 256<<10; {
				select {
				case f := <-frames:
					sub.queued.Add(-int64(len(f)))
					buf.Write(f)
				default:
					more = false
				}
			}
		case <-robotsTick.C:
			if up := s.g.Up(); up != broker.Up {
				broker.Up = up
				add("broker", broker)
			}
			var list []byte
			if withList {
				list, _ = json.Marshal(summarize(s.g.Robots(), s.now()))
			}
			if withList && !bytes.Equal(list, lastRobots) {
				lastRobots = list
				buf.WriteString("event: robots\ndata: ")
				buf.Write(list)
				buf.WriteString("\n\n")
			} else if time.Since(lastWrite) >= keepAliveEvery {
				buf.WriteString(": keep-alive\n\n")
			}
		}
		if buf.Len() > 0 {
			if !send() {
				return
			}
			lastWrite = time.Now()
		}
	}
}
