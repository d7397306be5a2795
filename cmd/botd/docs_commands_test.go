package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// The command lines the README and docs/ show in their code blocks are
// run here, so a doc that no longer matches the program (a flag renamed,
// a file moved, a subcommand gone) fails the test. Each line found must
// be listed in docCommands: run (with the exit status it should give) or
// skipped with the reason; a line in the docs the list does not know, or
// a listed line no doc shows any more, fails too. botd's lines run in
// this process from the repository's root; botctl's run as a built
// binary against a daemon the test starts (the default rover, with the
// labels and writable key the docs' examples use). Synopsis lines
// ("botd check [-substitute RULES] ...") are checked against the
// subcommand's -h: every flag they show must exist.

// docCommand says what to do with one command line of the docs.
type docCommand struct {
	exit int    // the exit status it gives
	out  string // a part of its output (standard output and error), when it matters
	skip string // why it does not run here
	// after names the line that must run first (it writes a file this
	// one reads).
	after string
}

const (
	skipExample  = "an example file the text describes, not in the repository"
	skipUAV      = "needs the simulated UAV's daemon (TestDaemonUAVSim* run it with configs/uav-sim.yaml)"
	skipForever  = "runs until it is stopped (a terminal UI, a web server, a follower); cmd/botctl's tests run it"
	skipFleet    = "a load test of hundreds of robots; TestFleet* run botd fleet with a few"
	skipSigned   = "needs a robot that requires signed commands (TestSigned* run them)"
	skipHardware = "opens real hardware"
)

// docCommands are the command lines of the docs, as normalized by
// docLine ("go run ./cmd/botd" read as "botd", comments dropped).
var docCommands = map[string]docCommand{
	// README
	"botd":                                  {skip: "the daemon itself: the test runs it (the default rover on its own port and state directory) for the botctl lines"},
	"botd sim configs/missions/patrol.json": {out: `mission "patrol": SUCCESS`},
	"botd sim -trace - configs/missions/hello.json":                        {out: `"event":"tick"`},
	"botd sim -agents 6 configs/missions/swarm.json":                       {},
	"botd check configs/missions/patrol.json configs/missions/swarm.json":  {out: "configs/missions/swarm.json: ok ("},
	"botd check -config configs/uav-sim.yaml configs/missions/survey.json": {out: "survey.json: ok ("},
	"botd nodes":                        {out: "Sequence"},
	"botd -config configs/uav-sim.yaml": {skip: skipUAV},
	"botctl watch uav-1":                {skip: skipForever},
	"botctl robots":                     {out: "rover-1"},
	"botctl robots --mode running --label site=north --sort -battery": {out: "0 of 1 robots match"},
	"botctl status":          {out: "rover-1"},
	"botctl events --follow": {skip: skipForever},
	"botctl watch rover-1":   {skip: skipForever},
	"botctl ui":              {skip: skipForever},
	"botctl mission send configs/missions/hello.json --robot rover-1 --start --replace": {out: "accepted and started"},
	"botctl pause rover-1":         {after: "botctl mission send configs/missions/hello.json --robot rover-1 --start --replace"},
	"botctl debug rover-1 break 7": {skip: "Groot2's hooks need groot2.allow_debug in the config (GROOT2.md); cmd/botctl's debug tests run them"},
	"botctl estop --all":           {skip: "run last, by the test itself, after every other botctl line"},
	"botctl mission send configs/missions/patrol.json --robots site=yard-a": {out: "rover-1"},
	"botd fleet -n 100 -broker tcp://127.0.0.1:1883":                        {skip: skipFleet},
	"botctl watch rover-1 ONLINE via tcp://127.0.0.1:1883":                  {skip: "the first line of watch's screen, not a command"},
	// DASHBOARD.md
	"botctl robots --mode running,paused --online":              {out: "rover-1"},
	"botctl robots --label site=north --label kind=rover":       {out: "0 of 1 robots match"},
	"botctl robots --sort -battery":                             {out: "rover-1"},
	"botctl robots --labels --json":                             {out: `"site": "yard-a"`},
	"botctl robots --label site=north --sort -battery --labels": {out: "0 of 1 robots match"},
	// DEPLOYMENT.md
	"botctl watch --broker ssl://broker.example:8884 --username alice --password-file ~/.botd-password --ca ca.crt": {skip: "needs a TLS broker with accounts (DEPLOYMENT.md's own setup)"},
	"botctl keygen --out ~/.config/botctl/ops.key":                                                                  {out: "ops.key"},
	"botctl mission send patrol.yaml --robot rover-1 --start --key ~/.config/botctl/ops.key":                        {skip: skipSigned},
	"botctl estop-reset rover-1 --key ~/.config/botctl/ops.key":                                                     {skip: skipSigned},
	// FLEET.md
	"botctl mission send patrol.yaml --robots 'rover-*' --start --replace": {out: "accepted and started"},
	"botctl mission send patrol.yaml --robots site=yard-a,kind=rover":      {out: "rover-1"},
	"botctl estop --robots site=yard-b":                                    {exit: 3, out: `no robot matches "site=yard-b"`},
	"botd fleet -n 300 -broker tcp://127.0.0.1:1883 -labels site=yard-a":   {skip: skipFleet},
	// GROOT2.md, HARDWARE.md
	"botd hwtest -config /etc/botd/botd.yaml":                                   {skip: skipHardware},
	"botd sim -hardware configs/sim-odometry.yaml configs/missions/patrol.json": {},
	// MISSIONS.md
	"botd check bad.json good.json":                                {skip: skipExample},
	"botd sim -set battery.percent=15 -set home=dock mission.yaml": {skip: skipExample},
	"botd sim -substitute '*=Succeed,FollowPath=Running:2,Failure,Failure,Running:2,Success' navigate_to_pose_w_replanning_and_recovery.xml": {out: "SUCCESS"},
	"botctl mission send yard.xml --robot rover-1":              {skip: skipExample},
	"botctl mission send yard.xml --robot rover-1 --revision 1": {skip: skipExample},
	"botd check -hardware configs/uav-sim-hw.yaml bad.plan":     {skip: skipExample},
	// SENSORS.md
	`botctl set rover-1 cruise=0.3 mode='"auto"' armed=true`: {exit: 1, out: `key "mode" is not writable`},
	// UAV.md
	// configs/uav-sim.yaml's fence is local (x/y around home): the plan's
	// lat/lon targets are located as problems, which the line is about.
	"botd check -config botd.yaml survey.plan":                                                         {out: "survey.plan: ok", after: "botd export -format plan -home 47.397742,8.545594,488 configs/missions/survey.json > survey.plan"},
	"botd export -format botd survey.plan":                                                             {out: `"format": "botd/mission@1"`, after: "botd export -format plan -home 47.397742,8.545594,488 configs/missions/survey.json > survey.plan"},
	"botctl mission send survey.plan --robot uav-1 --start":                                            {skip: skipUAV},
	"botd export -format plan -home 47.397742,8.545594,488 configs/missions/survey.json > survey.plan": {},
	"botctl status uav-1":                   {skip: skipUAV},
	"botd check -config botd.yaml far.yaml": {skip: skipExample},
}

// docFiles are the files the docs name that are somewhere else here:
// a doc's example name, the test's own copy of it ("TMP/" is the test's
// temporary directory).
var docFiles = map[string]string{
	"patrol.yaml": "configs/missions/patrol.json",
	"botd.yaml":   "configs/uav-sim.yaml",
	"navigate_to_pose_w_replanning_and_recovery.xml": "missions/testdata/corpus/nav2/navigate_to_pose_w_replanning_and_recovery.xml",
	"survey.plan":              "TMP/survey.plan",
	"~/.config/botctl/ops.key": "TMP/ops.key",
}

// docCommandLine matches a command line of botd or botctl.
var docCommandLine = regexp.MustCompile(`^(go run \./cmd/(botd|botctl)|botd|botctl)(\s|$)`)

// docLine normalizes a line of a code block; "" when it is no command.
func docLine(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "$ "))
	if !docCommandLine.MatchString(s) {
		return ""
	}
	s = strings.TrimPrefix(s, "go run ./cmd/")
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// docCommandLines extracts the command lines of the code blocks of the
// README and docs/*.md, with where each is.
func docCommandLines(t *testing.T, root string) map[string][]string {
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	found := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in, cont := false, ""
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for n := 1; sc.Scan(); n++ {
			l := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				in, cont = !in, ""
				continue
			}
			if !in {
				continue
			}
			l = cont + strings.TrimSpace(l)
			if strings.HasSuffix(l, `\`) {
				cont = strings.TrimSuffix(l, `\`) + " "
				continue
			}
			cont = ""
			if c := docLine(l); c != "" {
				rel, _ := filepath.Rel(root, f)
				found[c] = append(found[c], fmt.Sprintf("%s:%d", rel, n))
			}
		}
	}
	return found
}

// shellWords splits a command line as sh does for the quoting the docs
// use ('...', "...", and a > redirection, returned apart).
func shellWords(s string) (words []string, redirect string) {
	var w strings.Builder
	in, quote, redir := false, byte(0), false
	flush := func() {
		if in {
			if redir {
				redirect = w.String()
			} else {
				words = append(words, w.String())
			}
		}
		w.Reset()
		in = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ':
			flush()
		case c == '>' && !in:
			redir = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	flush()
	return words, redirect
}

func TestDocsCommandLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds botctl and runs a daemon")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := docCommandLines(t, root)
	var synopses, lines []string
	for c, where := range found {
		switch _, listed := docCommands[c]; {
		case strings.Contains(c, " [") || strings.HasSuffix(c, " FILE...") || strings.HasSuffix(c, " FILE"):
			synopses = append(synopses, c)
		case !listed:
			t.Errorf("%s: %q is a command line no test runs: add it to docCommands (with its exit status and output, or why it is skipped)", where[0], c)
		default:
			lines = append(lines, c)
		}
	}
	for c := range docCommands {
		if found[c] == nil {
			t.Errorf("docCommands lists %q, which no doc shows any more", c)
		}
	}
	sort.Strings(lines)
	sort.Strings(synopses)
	tmp := t.TempDir()
	path := func(a string) string {
		if p, ok := docFiles[a]; ok {
			if rest, isTmp := strings.CutPrefix(p, "TMP/"); isTmp {
				return filepath.Join(tmp, rest)
			}
			return filepath.Join(root, p)
		}
		return a
	}
	t.Chdir(root)

	// The synopses: every flag shown exists.
	flagOf := regexp.MustCompile(`\[(-[a-z][a-z-]*)`)
	for _, c := range synopses {
		words := strings.Fields(c)
		if words[0] != "botd" || len(words) < 2 {
			t.Errorf("%s: a synopsis of %q: only botd's are checked", found[c][0], c)
			continue
		}
		_, _, usage := runCmd(t, words[1], "-h")
		for _, m := range flagOf.FindAllStringSubmatch(c, -1) {
			if !strings.Contains(usage, "  "+m[1]+" ") && !strings.Contains(usage, "  "+m[1]+"\n") {
				t.Errorf("%s: %q shows %s, which botd %s -h does not know:\n%s", found[c][0], c, m[1], words[1], usage)
			}
		}
	}

	// botd -h shows the formats export's synopsis in MISSIONS.md shows.
	if _, out, errOut := runCmd(t, "-h"); !strings.Contains(out+errOut, "botd export [-format b3|b3tree|botd|btcpp|plan]") {
		t.Errorf("botd -h shows another export synopsis than MISSIONS.md's:\n%s%s", out, errOut)
	}
	if _, out, errOut := runCmd(t, "export", "-h"); !strings.Contains(out+errOut, "botd export [-format b3|b3tree|botd|btcpp|plan]") {
		t.Errorf("botd export -h shows another synopsis than MISSIONS.md's:\n%s%s", out, errOut)
	}

	// botd's lines, in this process; first those others read the output of.
	ran := map[string]bool{}
	var runBotd func(c string)
	runBotd = func(c string) {
		d := docCommands[c]
		if ran[c] || d.skip != "" {
			return
		}
		ran[c] = true
		if d.after != "" {
			runBotd(d.after)
		}
		words, redirect := shellWords(c)
		for i := range words {
			words[i] = path(words[i])
		}
		code, out, errOut := runCmd(t, words[1:]...)
		if redirect != "" {
			if err := os.WriteFile(path(redirect), []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if code != d.exit || !strings.Contains(out+errOut, d.out) {
			t.Errorf("%s: %s: exit %d, want %d with %q in its output:\n%s%s", found[c][0], c, code, d.exit, d.out, out, errOut)
		}
	}
	for _, c := range lines {
		if strings.HasPrefix(c, "botd") {
			runBotd(c)
		}
	}

	// botctl's lines, against a daemon.
	botctl := filepath.Join(tmp, "botctl")
	if out, err := exec.Command("go", "build", "-o", botctl, "./cmd/botctl").CombinedOutput(); err != nil {
		t.Fatalf("building botctl: %v\n%s", err, out)
	}
	cfg := filepath.Join(tmp, "botd.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("robot: rover-1\nhardware: %s\nmission: %s\nlabels: {site: yard-a, kind: rover}\nwritable: [cruise]\nfailsafe: {require_gcs: false}\n",
		filepath.Join(root, "configs", "sim.yaml"), filepath.Join(root, "configs", "missions", "patrol.json"))), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	url := "tcp://" + addr
	p := startDaemonProc(t, "-config", cfg, "-listen", addr, "-state-dir", filepath.Join(tmp, "state"))
	g := newGround(t, url, "rover-1")
	g.waitFor(t, "rover-1 online", func(r *groundRec) bool { return len(r.conn) > 0 && r.conn[len(r.conn)-1] == "ONLINE" })
	runBotctl := func(c string, d docCommand) {
		words, _ := shellWords(c)
		for i := range words {
			words[i] = path(words[i])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, botctl, append(words[1:], "--broker", url)...)
		cmd.Env = append(os.Environ(), "HOME="+tmp)
		out, _ := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if code != d.exit || !strings.Contains(string(out), d.out) {
			t.Errorf("%s: %s: exit %d, want %d with %q in its output:\n%s", found[c][0], c, code, d.exit, d.out, out)
		}
	}
	var runCtl func(c string)
	runCtl = func(c string) {
		d := docCommands[c]
		if ran[c] || d.skip != "" {
			return
		}
		ran[c] = true
		if d.after != "" {
			runCtl(d.after)
		}
		runBotctl(c, d)
	}
	for _, c := range lines {
		if strings.HasPrefix(c, "botctl") {
			runCtl(c)
		}
	}
	// The e-stop of every robot, last.
	runBotctl("botctl estop --all", docCommand{out: "rover-1"})
	p.stop(t)

	var skipped []string
	for _, c := range lines {
		if d := docCommands[c]; d.skip != "" {
			skipped = append(skipped, fmt.Sprintf("%s: %s (%s)", found[c][0], c, d.skip))
		}
	}
	t.Logf("%d command lines run, %d synopses checked, %d skipped:\n%s", len(ran)+1, len(synopses), len(skipped), strings.Join(skipped, "\n"))
}
