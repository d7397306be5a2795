package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/protocol"
)

// signCmd is `botctl sign` with its options.
type signCmd struct {
	*cli
	signKey string // the private key signing the document
	out     outFlag
}

func (c *signCmd) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.signKey, "key", "", "Ed25519 private key file: base64 seed or key (botctl keygen)")
	fs.Var(&c.out, "out", "write the signature to FILE.sig (or --out=PATH) instead of printing it")
}

// keygenCmd is `botctl keygen` with its options.
type keygenCmd struct {
	*cli
	keyID, keyOut string
}

func (c *keygenCmd) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.keyID, "id", "", "key id for the robot's config (default: the file name)")
	fs.StringVar(&c.keyOut, "out", "", "the private key file to write (or give it as the argument)")
}

// signJSON is `sign --json` output.
type signJSON struct {
	File      string `json:"file"`
	MissionID string `json:"mission_id"`
	IDAdded   bool   `json:"id_added,omitempty"`
	Signature string `json:"signature"`
	PublicKey string `json:"public_key"`
	Out       string `json:"out,omitempty"`
}

// sign signs a mission's canonical bytes. A mission without an id gets
// one first, written into the file: the id is part of what is signed.
func (c *signCmd) run(args []string) error {
	if len(args) != 1 {
		return usageError("sign takes one mission file")
	}
	if c.signKey == "" {
		return usageError("--key is required (make one with botctl keygen)")
	}
	key, err := missions.LoadPrivateKey(c.signKey)
	if err != nil {
		return fail(exitUsage, "signing key: %v", err)
	}
	file := args[0]
	mf, err := c.readMission(file, "")
	if err != nil {
		return err
	}
	added := false
	if mf.doc.ID == "" {
		id := uuid.NewString()
		data, how, err := withID(mf.data, mf.doc, id)
		if err != nil {
			return fail(exitUsage, "%s has no mission id and botctl cannot add one: %v", file, err)
		}
		st, err := os.Stat(file)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		if err := os.WriteFile(file, data, st.Mode().Perm()); err != nil {
			return fail(exitUsage, "adding the mission id: %v", err)
		}
		mf.doc.ID = id
		added = true
		fmt.Fprintf(c.stderr, "note: %s had no mission id; added \"id\": %q%s and rewrote the file (the signature covers the id)\n", file, id, how)
	}
	sig, err := missions.SignDocument(key, mf.doc)
	if err != nil {
		return fail(exitRefused, "%s: %v", file, err)
	}
	pub := base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))
	out := ""
	if c.out.set {
		out = c.out.path
		if out == "" {
			out = file + ".sig"
		}
		if err := os.WriteFile(out, []byte(sig+"\n"), 0o644); err != nil {
			return fail(exitUsage, "%v", err)
		}
	}
	switch {
	case c.json:
		return c.printJSON(signJSON{File: file, MissionID: mf.doc.ID, IDAdded: added, Signature: sig, PublicKey: pub, Out: out})
	case out != "":
		fmt.Fprintf(c.stdout, "signed mission %s (%s) with key %s; signature written to %s\n", mf.doc.ID, missionName(mf.doc), pub, out)
	default:
		fmt.Fprintln(c.stdout, sig)
	}
	return nil
}

// withID returns the file's bytes with "id" added, keeping the author's
// formatting when it can: a line after the opening brace of botd JSON, a
// line after "format:" in YAML. The result is checked by decoding it.
// Imported formats (Behavior3, BehaviorTree.CPP XML) have no place for it.
func withID(data []byte, doc *missions.Document, id string) ([]byte, string, error) {
	body := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	want := *doc
	want.ID = id
	canon := missions.Canonical(&want)
	check := func(b []byte) bool {
		d, err := missions.Decode(b)
		return err == nil && bytes.Equal(missions.Canonical(d), canon)
	}
	switch {
	case len(body) > 0 && body[0] == '<':
		return nil, "", errors.New("a BehaviorTree.CPP XML file has no mission id field; convert it to a botd mission (JSON or YAML) first")
	case len(body) > 0 && (body[0] == '{' || body[0] == '['):
		var top map[string]json.RawMessage
		if json.Unmarshal(body, &top) != nil || top["format"] == nil {
			return nil, "", errors.New("a Behavior3 file has no mission id field; convert it to a botd mission (JSON or YAML) first")
		}
		if b := insertJSONID(data, id); b != nil && check(b) {
			return b, "", nil
		}
		b, err := want.JSON()
		if err == nil && check(b) {
			return b, " (the file was reformatted)", nil
		}
	default:
		if b := insertYAMLID(data, id); b != nil && check(b) {
			return b, "", nil
		}
		b, err := want.YAML()
		if err == nil && check(b) {
			return b, " (the file was reformatted; its comments are gone)", nil
		}
	}
	return nil, "", errors.New("the rewritten file did not decode to the same mission")
}

// insertJSONID adds `"id": "…",` as the first member of the top object,
// indented like the member after it.
func insertJSONID(data []byte, id string) []byte {
	i := bytes.IndexByte(data, '{')
	if i < 0 {
		return nil
	}
	rest := data[i+1:]
	member := fmt.Sprintf("%q: %q,", "id", id)
	if j := bytes.IndexByte(rest, '\n'); j >= 0 && len(bytes.TrimSpace(rest[:j])) == 0 {
		line := rest[j+1:]
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		member = "\n" + string(indent) + member
	} else {
		member = " " + member
	}
	out := append([]byte{}, data[:i+1]...)
	out = append(out, member...)
	return append(out, rest...)
}

// insertYAMLID adds `id: …` after the top-level format line, or before the
// first top-level key.
func insertYAMLID(data []byte, id string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "format:") {
			at = i + 1
			break
		}
	}
	if at < 0 {
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "---") && !strings.HasPrefix(t, "%") && l[0] != ' ' {
				at = i
				break
			}
		}
	}
	if at < 0 {
		return nil
	}
	nl := "\n"
	if strings.HasSuffix(strings.Join(lines, ""), "\r\n") {
		nl = "\r\n"
	}
	if at > 0 && !strings.HasSuffix(lines[at-1], "\n") {
		lines[at-1] += nl
	}
	out := append([]string{}, lines[:at]...)
	out = append(out, "id: "+id+nl)
	return []byte(strings.Join(append(out, lines[at:]...), ""))
}

// keygen writes a new key pair: FILE (the private seed, mode 0600) and
// FILE.pub ("id:base64", the line for the robot's security.public_keys).
func (c *keygenCmd) run(args []string) error {
	file := c.keyOut
	switch {
	case file != "" && len(args) == 0:
	case file == "" && len(args) == 1:
		file = args[0]
	default:
		return usageError("keygen takes the private key file to write: --out FILE (or FILE)")
	}
	id := c.keyID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if id == "" || strings.ContainsAny(id, " \t\n\"") {
		return usageError("--id %q: want a short name without spaces", id)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fail(exitUsage, "%v", err)
	}
	line := id + ":" + base64.StdEncoding.EncodeToString(pub)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fail(exitUsage, "%v (botctl never overwrites a key)", err)
	}
	_, err = fmt.Fprintln(f, base64.StdEncoding.EncodeToString(priv.Seed()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if err := os.WriteFile(file+".pub", []byte(line+"\n"), 0o644); err != nil {
		return fail(exitUsage, "%v", err)
	}
	if c.json {
		return c.printJSON(map[string]string{"private_key_file": file, "public_key_file": file + ".pub", "public_key": line})
	}
	fmt.Fprintf(c.stdout, "private key: %s (keep it secret)\npublic key:  %s (also in %s)\n\nOn the robot (botd config):\n  security:\n    require_signed_missions: true\n    public_keys: [%q]\n\nOn the ground station: botctl --key %s ... (or export %s=%s)\n",
		file, line, file+".pub", line, file, signingEnv, file)
	return nil
}

// signingEnv names the signing key file when no --key is given: the
// operator's botctl configuration for robots that require signed
// commands.
const signingEnv = "BOTCTL_SIGNING_KEY"

// loadSigner reads the signing key (--key, else $BOTCTL_SIGNING_KEY) once;
// without either, commands go unsigned. The key id is --key-id, else the
// id in FILE.pub (botctl keygen writes it), else the file's name without
// its extension.
func (c *cli) loadSigner() error {
	if c.signer != nil {
		return nil
	}
	file := c.signKey
	if file == "" {
		file = os.Getenv(signingEnv)
	}
	if file == "" {
		return nil
	}
	key, err := missions.LoadPrivateKey(file)
	if err != nil {
		return fail(exitUsage, "signing key: %v", err)
	}
	id := c.keyID
	if id == "" {
		if line, err := os.ReadFile(file + ".pub"); err == nil {
			if pid, pub, err := missions.ParsePublicKey(string(line)); err == nil && pub.Equal(key.Public()) {
				id = pid
			}
		}
	}
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if !auth.ValidKeyID(id) {
		return usageError("key id %q: want 1 to %d letters, digits or _ . : - (--key-id)", id, auth.MaxKeyID)
	}
	c.signer = &auth.Signer{KeyID: id, Key: key, Validity: c.validFor, Now: c.now}
	return nil
}

// signCommand signs the commands a robot may require an envelope for.
func (c *cli) signCommand(robot string, cmd *protocol.Command) error {
	if c.signer == nil || !auth.Signed[cmd.Op] {
		return nil
	}
	return c.signer.Sign(robot, cmd)
}

// signingFlags are --key and --key-id of the commands that sign.
// signingOptions are the signing flags of the commands that send signed
// commands; loadSigner makes the signer from them.
type signingOptions struct {
	signKey, keyID string
	validFor       time.Duration
}

func signingFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&c.signKey, "key", "", "Ed25519 signing key file (botctl keygen); else $"+signingEnv)
	fs.StringVar(&c.keyID, "key-id", "", "id of the signing key, as in the robot's security.public_keys (default: from KEY.pub)")
	fs.DurationVar(&c.validFor, "valid-for", time.Minute, "how long the signed command stays valid, 1m by default (at most the robot's security.max_validity)")
}
