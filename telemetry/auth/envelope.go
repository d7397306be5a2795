// Package auth signs and verifies command envelopes (PROTOCOL.md,
// "Signed commands"): an Ed25519 signature, by one of the keys a robot
// trusts, over an envelope that binds the robot (or a fleet pattern), the
// operation, a hash of every argument, the document hash, an issue time,
// an expiry and a random nonce. The robot keeps the nonces it has seen in
// a file (NonceStore) so that a captured command cannot be sent again,
// not even after a restart.
//
// The ground station signs (Signer); the robot verifies (Verifier). Both
// compute the arguments' hash with ArgsHash from the command as it is on
// the wire, so a ground station written in another language reproduces
// it from the bytes it sends.
package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Domain is prefixed to the envelope's bytes before signing, so that a
// signature over an envelope is never a valid signature of anything else.
const Domain = "botd-command-v1\n"

// Version is the envelope version (member "v").
const Version = 1

// Bounds on an envelope, checked before any hashing or signature check.
const (
	MaxEnvBytes   = 1024
	MaxKeyID      = 64
	MaxRobotGlob  = 128
	MinNonceBytes = 16
	MaxNonceBytes = 64
)

// Signed lists the ops that need an envelope when a robot requires
// signed commands: everything that can move the robot or change its
// mission. pause, abort and estop make the robot safer and never do.
var Signed = map[string]bool{
	protocol.OpMissionLoad:   true,
	protocol.OpMissionInject: true,
	protocol.OpMissionStart:  true,
	protocol.OpMissionResume: true,
	protocol.OpBlackboardSet: true,
	protocol.OpEStopReset:    true,
	// Hooks hold, release and force the mission's nodes (hook.list only
	// reads them).
	protocol.OpHookSet:    true,
	protocol.OpHookUnlock: true,
	protocol.OpHookRemove: true,
	protocol.OpHookClear:  true,
}

// ArgMembers are the command members the argument hash covers, in the
// order they are hashed.
var ArgMembers = []string{"mission", "start", "replace", "mission_id", "slot", "tree", "agent", "key", "value", "hook"}

// Envelope is what is signed.
type Envelope struct {
	V     int    `json:"v"`
	KeyID string `json:"kid"`
	// Robot is the robot id or a pattern (path.Match: rover-*, rover-[12]).
	Robot string `json:"robot"`
	Op    string `json:"op"`
	// Args is the hex SHA-256 of the command's arguments (ArgsHash).
	Args string `json:"args"`
	// Doc is the hex SHA-256 of the document the command carries (the
	// mission of a mission.load, the tree of a mission.inject); "" for the
	// other ops.
	Doc string `json:"doc,omitempty"`
	// IssuedAt and Expires are Unix seconds.
	IssuedAt int64 `json:"iat"`
	Expires  int64 `json:"exp"`
	// Nonce is random, hex, 16 to 64 bytes.
	Nonce string `json:"nonce"`
}

// Members returns the top-level members of a command's JSON text, each
// exactly as it is in the text.
func Members(payload []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(payload, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// ArgsHash is the hex SHA-256 of the text made of one line per argument
// member present in the command, in ArgMembers order:
//
//	NAME ":" hex(SHA-256(the member's value exactly as in the command)) "\n"
//
// and doc is the document hash: the hex SHA-256 of the document's bytes
// (the mission of a mission.load: the string's content when it is sent
// as a JSON string, else the value's bytes; the tree of a
// mission.inject: the value's bytes), or "" when there is none.
func ArgsHash(op string, members map[string]json.RawMessage) (args, doc string, err error) {
	var b strings.Builder
	for _, name := range ArgMembers {
		raw, ok := members[name]
		if !ok {
			continue
		}
		sum := sha256.Sum256(raw)
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(hex.EncodeToString(sum[:]))
		b.WriteByte('\n')
	}
	sum := sha256.Sum256([]byte(b.String()))
	args = hex.EncodeToString(sum[:])
	var docBytes []byte
	switch op {
	case protocol.OpMissionLoad:
		raw := members["mission"]
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", "", fmt.Errorf("mission: %w", err)
			}
			docBytes = []byte(s)
		} else {
			docBytes = raw
		}
	case protocol.OpMissionInject:
		docBytes = members["tree"]
	default:
		return args, "", nil
	}
	if docBytes == nil {
		return args, "", nil
	}
	d := sha256.Sum256(docBytes)
	return args, hex.EncodeToString(d[:]), nil
}

// Signer signs commands with one key.
type Signer struct {
	KeyID string
	Key   ed25519.PrivateKey
	// Validity is how long an envelope stays valid [60 s]; it must not
	// exceed the robot's security.max_validity.
	Validity time.Duration
	Now      func() time.Time // [time.Now]
}

// Sign sets c.Auth to an envelope for robot (an id or a pattern). The
// command is encoded as the ground station will send it (encoding/json),
// so the arguments hashed are the bytes on the wire.
func (s *Signer) Sign(robot string, c *protocol.Command) error {
	if s == nil || s.Key == nil {
		return errors.New("no signing key")
	}
	c.Auth = nil
	payload, err := json.Marshal(c)
	if err != nil {
		return err
	}
	members, err := Members(payload)
	if err != nil {
		return err
	}
	args, doc, err := ArgsHash(c.Op, members)
	if err != nil {
		return err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	validity := s.Validity
	if validity <= 0 {
		validity = 60 * time.Second
	}
	nonce := make([]byte, MinNonceBytes)
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	iat := now().Unix()
	env := Envelope{V: Version, KeyID: s.KeyID, Robot: robot, Op: c.Op, Args: args, Doc: doc,
		IssuedAt: iat, Expires: iat + int64(validity/time.Second), Nonce: hex.EncodeToString(nonce)}
	a, err := SignEnvelope(s.Key, env)
	if err != nil {
		return err
	}
	c.Auth = a
	return nil
}

// SignEnvelope encodes env and signs it.
func SignEnvelope(key ed25519.PrivateKey, env Envelope) (*protocol.CommandAuth, error) {
	b, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxEnvBytes {
		return nil, fmt.Errorf("the envelope is %d bytes, more than %d", len(b), MaxEnvBytes)
	}
	sig := ed25519.Sign(key, append([]byte(Domain), b...))
	return &protocol.CommandAuth{Env: string(b), Sig: base64.StdEncoding.EncodeToString(sig)}, nil
}

// ParseEnvelope decodes and checks the form of an envelope: size, known
// members only, version, key id, robot pattern, hashes and nonce. It
// checks no signature.
func ParseEnvelope(env string) (Envelope, error) {
	var e Envelope
	if len(env) > MaxEnvBytes {
		return e, fmt.Errorf("the envelope is %d bytes, more than %d", len(env), MaxEnvBytes)
	}
	dec := json.NewDecoder(strings.NewReader(env))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("the envelope is not an envelope object: %v", err)
	}
	if dec.More() {
		return e, errors.New("the envelope has data after its object")
	}
	if e.V != Version {
		return e, fmt.Errorf("envelope version %d, want %d", e.V, Version)
	}
	if e.KeyID == "" || len(e.KeyID) > MaxKeyID || !validID(e.KeyID) {
		return e, fmt.Errorf("kid %q: want 1 to %d letters, digits or _ . : -", e.KeyID, MaxKeyID)
	}
	if e.Robot == "" || len(e.Robot) > MaxRobotGlob {
		return e, fmt.Errorf("robot %q: want an id or pattern of 1 to %d bytes", e.Robot, MaxRobotGlob)
	}
	if _, err := path.Match(e.Robot, ""); err != nil {
		return e, fmt.Errorf("robot %q: not a pattern: %v", e.Robot, err)
	}
	if !isHex(e.Args, 64) {
		return e, errors.New("args: want 64 hex digits")
	}
	if e.Doc != "" && !isHex(e.Doc, 64) {
		return e, errors.New("doc: want 64 hex digits")
	}
	if n := len(e.Nonce); n < 2*MinNonceBytes || n > 2*MaxNonceBytes || !isHex(e.Nonce, n) {
		return e, fmt.Errorf("nonce: want %d to %d random bytes in hex", MinNonceBytes, MaxNonceBytes)
	}
	return e, nil
}

// ValidKeyID reports whether id can name a key in an envelope.
func ValidKeyID(id string) bool { return id != "" && len(id) <= MaxKeyID && validID(id) }

func validID(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// isHex reports whether s is n lower-case hex digits.
func isHex(s string, n int) bool {
	if len(s) != n || n%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// verifySig checks sig (base64) over Domain+env.
func verifySig(pub ed25519.PublicKey, env, sig string) bool {
	raw, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(raw) != ed25519.SignatureSize {
		return false
	}
	msg := make([]byte, 0, len(Domain)+len(env))
	msg = append(append(msg, Domain...), env...)
	return ed25519.Verify(pub, msg, raw)
}
