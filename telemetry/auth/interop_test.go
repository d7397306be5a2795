package auth

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// A ground station that is not botctl: a shell script with sha256sum and
// openssl builds and signs a mission.load from PROTOCOL.md alone, and the
// robot takes it.
func TestShellSignedCommand(t *testing.T) {
	for _, tool := range []string{"sh", "openssl", "sha256sum", "base64"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s missing", tool)
		}
	}
	f := newFixture(t)
	der, err := x509.MarshalPKCS8PrivateKey(f.keys["ops"])
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "ops.pem")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	script := `set -eu
h() { printf '%s' "$1" | sha256sum | cut -c1-64; }
doc='format: botd/mission@1
id: 0b6f3c1e-2d4a-4e8b-9a61-3f5c7d9e1a20
'
mission='"format: botd/mission@1\nid: 0b6f3c1e-2d4a-4e8b-9a61-3f5c7d9e1a20\n"'
args=$(printf 'mission:%s\nstart:%s\n' "$(h "$mission")" "$(h true)" | sha256sum | cut -c1-64)
env="{\"v\":1,\"kid\":\"ops\",\"robot\":\"rover-1\",\"op\":\"mission.load\",\"args\":\"$args\",\"doc\":\"$(h "$doc")\",\"iat\":$IAT,\"exp\":$((IAT+60)),\"nonce\":\"$(openssl rand -hex 16)\"}"
printf 'botd-command-v1\n%s' "$env" > "$DIR/msg"
openssl pkeyutl -sign -inkey "$KEY" -rawin -in "$DIR/msg" -out "$DIR/sig"
sig=$(base64 -w0 < "$DIR/sig")
envj=$(printf '%s' "$env" | sed 's/"/\\"/g')
printf '{"id":"sh-1","op":"mission.load","mission":%s,"start":true,"auth":{"env":"%s","sig":"%s"}}' "$mission" "$envj" "$sig"
`
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "KEY="+keyFile, "DIR="+t.TempDir(), fmt.Sprintf("IAT=%d", f.clock().Unix()))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the script: %v\n%s", err, out)
	}
	if code := f.check(out); code != "" {
		t.Fatalf("the shell-signed command: %q\n%s", code, out)
	}
	// And the same command with start changed is refused.
	if code := f.check([]byte(strings.Replace(string(out), `"start":true`, `"start":false`, 1))); code != protocol.ErrBadSignature {
		t.Fatalf("the shell-signed command with start changed: %q", code)
	}
}
