package runner

import (
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// SignedOnly returns a Config.Verify function that requires a signature by
// one of ring's keys on every mission.load.
func SignedOnly(ring missions.Keyring) func(c protocol.Command, doc []byte) *protocol.ReplyError {
	return func(c protocol.Command, doc []byte) *protocol.ReplyError {
		if c.Signature == "" {
			return &protocol.ReplyError{Code: protocol.ErrSignatureRequired, Message: "this robot accepts only signed missions (botctl sign)", Path: "/signature"}
		}
		if field, err := ring.VerifyDocument(c.KeyID, c.Signature, doc); err != nil {
			return &protocol.ReplyError{Code: protocol.ErrBadSignature, Message: err.Error(), Path: field}
		}
		return nil
	}
}
