package testscripts

// Commands of the install and doctor scripts (install-*.txtar, doctor-*.txtar), registered
// apart from the shared ones in script_test.go.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	commands["cairnbin"] = cmdCairnBin
	commands["cpbin"] = cmdCpBin
	commands["installsh"] = cmdInstallSH
	commands["goinstall"] = cmdGoInstall
	commands["cairnsrc"] = cmdCairnSrc
}

// cairnsrc VAR sets VAR to the absolute path of cairn's source tree, the checkout install.sh
// is run from.
func cmdCairnSrc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: cairnsrc VAR")
	}
	src, err := filepath.Abs("..")
	ts.Check(err)
	ts.Setenv(args[0], src)
}

// goinstall DIR runs `go install ./hooks/...` in the repository with GOBIN=DIR, as a user does
// in a clone (the module is not published, so there is no @latest to fetch): every binary of
// the module's hooks/, built by the go command, into a bin directory of the user's that is not
// cairn's own. The test process's Go caches are used.
func cmdGoInstall(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: goinstall DIR")
	}
	kv, err := goEnv()
	ts.Check(err)
	src, err := filepath.Abs("..")
	ts.Check(err)
	cmd := exec.Command("go", "install", "./hooks/...")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOBIN="+ts.MkAbs(args[0]))
	for i := 0; i < len(kv); i += 2 {
		cmd.Env = append(cmd.Env, kv[i]+"="+kv[i+1])
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		ts.Fatalf("go install: %v\n%s", err, out)
	}
}

// cpbin SRC DST copies a file that a script then runs (a binary, or a shell script standing in
// for one) to DST, mode 0755. Use it instead of cp for those: see writeExecutable.
func cmdCpBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpbin SRC DST")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(writeExecutable(ts.MkAbs(args[1]), data))
}

// writeExecutable writes data to path, mode 0755, holding syscall.ForkLock while the file is
// open for writing. The scripts run in parallel goroutines of one process, and a child forked by
// another script in that window inherits the descriptor until it execs: running the new file
// then fails with ETXTBSY ("text file busy", golang.org/issue/22315). testscript's own cp writes
// without the lock, and a run of the suite met this once in about twenty.
func writeExecutable(path string, data []byte) error {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chmod(path, 0o755)
}

// cairnbin DIR copies cairn and every hook binary (all that `go build ./hooks/...` made) into
// DIR, as install.sh installs them, and sets $CAIRN_VERSION to their version. DIR is the
// script's own, so a script may delete or break a binary there without touching the ones other
// scripts run.
func cmdCairnBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: cairnbin DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	touchTemplates(ts)
	entries, err := os.ReadDir(binDir)
	ts.Check(err)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue // old/: the binary of another version, for doctor-wiring
		}
		data, err := os.ReadFile(filepath.Join(binDir, e.Name()))
		ts.Check(err)
		ts.Check(writeExecutable(filepath.Join(dir, e.Name()), data))
	}
	out, err := exec.Command(filepath.Join(dir, "cairn"), "--version").Output()
	ts.Check(err)
	ver, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "cairn ")
	if !ok {
		ts.Fatalf("cairn --version printed %q", out)
	}
	ts.Setenv("CAIRN_VERSION", ver)
}

// goEnv is the Go environment of the test process: install.sh builds with the same caches even
// though the script's HOME is a fake one.
var goEnv = sync.OnceValues(func() ([]string, error) {
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOTOOLCHAIN", "GOFLAGS", "GOPROXY"}
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	if err != nil {
		return nil, err
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != len(keys) {
		return nil, fmt.Errorf("go env printed %q", out)
	}
	var kv []string
	for i, k := range keys {
		kv = append(kv, k, vals[i])
	}
	return kv, nil
})

// installsh ARGS… runs the repository's install.sh with ARGS, in the script's environment plus
// the test process's Go caches. Its stdout and stderr become the script's.
func cmdInstallSH(ts *testscript.TestScript, neg bool, args []string) {
	kv, err := goEnv()
	ts.Check(err)
	for i := 0; i < len(kv); i += 2 {
		ts.Setenv(kv[i], kv[i+1])
	}
	src, err := filepath.Abs("..")
	ts.Check(err)
	// Read by this process, install.sh joins the inputs go test keys its cache on.
	_, err = os.ReadFile(filepath.Join(src, "install.sh"))
	ts.Check(err)
	// install.sh keeps its build in the user's cache directory. Unless a script names its own
	// (to look at that cache), every script's install.sh shares one, as one user's installs do:
	// the scripts then link cairn's binaries about once between them instead of once a run.
	own := ts.Getenv("XDG_CACHE_HOME") != ""
	if !own {
		ts.Setenv("XDG_CACHE_HOME", installCache)
	}
	err = ts.Exec("sh", append([]string{filepath.Join(src, "install.sh")}, args...)...)
	if !own {
		ts.Setenv("XDG_CACHE_HOME", "")
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("install.sh: %v", err)
	case err == nil && neg:
		ts.Fatalf("install.sh succeeded unexpectedly")
	}
}

// touchTemplates reads the skill templates that the cairn binary embeds: touchSources opens only
// .go files, and go test caches a pass keyed by the files the test process opened.
func touchTemplates(ts *testscript.TestScript) {
	ts.Check(filepath.WalkDir("../pkg/setup/skills/templates", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			_, err = os.ReadFile(p)
		}
		return err
	}))
}
