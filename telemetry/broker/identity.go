package broker

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
)

// Identity reserves client ids for the daemon that runs the broker. MQTT
// gives a client id to whoever connects with it last and closes the
// connection that held it, so without this any client on the broker (on
// loopback no credentials are needed) could take the daemon's e-stop
// connection away, or hold its main id and keep the robot unreachable.
//
// A reserved id is one of IDs, or one of them followed by "-" and
// anything ("botd-rover-1" reserves "botd-rover-1-estop" and the
// drivers' "botd-rover-1-<device>"). A client connecting with a reserved
// id must present Secret as its MQTT password (any user name); anyone else
// is refused before the broker looks at the id's session, so the
// connection holding the id is not disturbed. A client authenticated this
// way passes the credentials file and every ACL.
type Identity struct {
	IDs    []string
	Secret string
}

// NewSecret returns a random per-boot secret for Identity: it lives in
// memory only and changes at every start.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// reserves reports whether id is one of the reserved client ids.
func (i *Identity) reserves(id string) bool {
	for _, own := range i.IDs {
		if own != "" && (id == own || strings.HasPrefix(id, own+"-")) {
			return true
		}
	}
	return false
}

// errReservedID refuses a client that asked for a reserved id without
// the secret.
var errReservedID = errors.New("client id reserved for the robot's daemon")

// identityHook enforces Identity. It refuses in OnConnect, which mochi
// runs before OnConnectAuthenticate (where any one allowing hook wins)
// and before it hands the id's session over, so the refusal is final and
// the holder keeps its connection.
type identityHook struct {
	mqtt.HookBase
	id      Identity
	srv     *mqtt.Server
	log     *slog.Logger
	refused atomic.Int64
	// inflight counts what waits for an own connection's acknowledgement
	// (set once the broker has made it, before it accepts connections).
	inflight *inflightHook
}

func (h *identityHook) ID() string { return "botd-identity" }

func (h *identityHook) Provides(b byte) bool {
	return b == mqtt.OnConnect || b == mqtt.OnConnectAuthenticate || b == mqtt.OnACLCheck
}

// own reports whether pk presents the secret for a reserved cl.ID.
func (h *identityHook) own(cl *mqtt.Client, pk packets.Packet) bool {
	return h.id.Secret != "" && h.id.reserves(cl.ID) &&
		subtle.ConstantTimeCompare(pk.Connect.Password, []byte(h.id.Secret)) == 1
}

func (h *identityHook) OnConnect(cl *mqtt.Client, pk packets.Packet) error {
	if !h.id.reserves(cl.ID) || h.own(cl, pk) {
		return nil
	}
	h.refused.Add(1)
	h.log.Warn("client refused: its id is reserved for the robot's daemon", "client", cl.ID, "remote", cl.Net.Remote)
	// Bad user name or password: the one refusal v3 and v5 clients both
	// read as "not authorized" (mochi has no v3 code for NotAuthorized).
	_ = h.srv.SendConnack(cl, packets.ErrBadUsernameOrPassword, false, nil)
	return errReservedID
}

// OnConnectAuthenticate admits the daemon's own connections (whatever the
// credentials file says); for every other client it says no and leaves
// the decision to the credentials hook after it.
func (h *identityHook) OnConnectAuthenticate(cl *mqtt.Client, pk packets.Packet) bool {
	if !h.own(cl, pk) {
		return false
	}
	if gc, ok := cl.Net.Conn.(*guardedConn); ok {
		// Never let go as a slow consumer; bounded by shedding instead
		// (sendq.go, ownq.go).
		gc.l.setOwn(gc, releaseInflight(h.srv, cl, h.inflight), func() int64 { return h.inflight.ownBytes(cl.ID) })
	}
	return true
}

// owns reports whether cl is one of the daemon's own connections (only
// they got in under a reserved id).
func (h *identityHook) owns(cl *mqtt.Client) bool {
	return h != nil && h.id.Secret != "" && h.id.reserves(cl.ID)
}

// OnACLCheck lets the daemon's own connections (only they got in under a
// reserved id) reach every topic; others are left to the credentials
// hook.
func (h *identityHook) OnACLCheck(cl *mqtt.Client, _ string, _ bool) bool {
	return h.id.Secret != "" && h.id.reserves(cl.ID)
}
