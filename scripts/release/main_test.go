package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/setup"
)

// TestRelease builds the release of a few platforms — this machine's and windows/amd64 unless
// CAIRN_RELEASE_TEST_PLATFORMS names others — twice, and checks what a user downloads:
// SHA256SUMS covers every archive, with the right sums, in sha256sum's format; each binaries
// archive holds cairn and every hook the plugin's hooks.json wires, stamped with the version,
// for its platform (.exe on Windows); each plugin archive is a plugin whose hooks and MCP
// server run files it holds; and the second build is byte for byte the first.
//
// It cross-compiles every binary for two platforms, twice: tens of seconds on a cold cache, so it
// is opt-in (CAIRN_RELEASE_TEST=1), as the whole reliability suite and the end-to-end suite are; scripts/check.sh
// and so CI run it.
func TestRelease(t *testing.T) {
	if os.Getenv("CAIRN_RELEASE_TEST") != "1" {
		t.Skip("opt-in: CAIRN_RELEASE_TEST=1 builds the release archives (scripts/check.sh does)")
	}
	plats := os.Getenv("CAIRN_RELEASE_TEST_PLATFORMS")
	if plats == "" {
		plats = runtime.GOOS + "/" + runtime.GOARCH
		if runtime.GOOS != "windows" {
			plats += ",windows/amd64"
		}
	}
	touchSources(t)
	const ver = "v9.8.7-test"
	var sums [2][]byte
	for i := range sums {
		out := t.TempDir()
		var log bytes.Buffer
		env := func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return ""
			}
			return os.Getenv(k)
		}
		if err := run(context.Background(), []string{"-src", "../..", "-out", out, "-version", ver, "-platforms", plats}, &log, env); err != nil {
			t.Fatalf("release: %v\n%s", err, log.String())
		}
		t.Logf("%s", log.String())
		var err error
		sums[i], err = os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			checkRelease(t, out, ver, strings.Split(plats, ","))
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Errorf("two builds of the same sources differ:\n%s\n%s", sums[0], sums[1])
	}
}

func checkRelease(t *testing.T, out, ver string, plats []string) {
	t.Helper()
	// SHA256SUMS: "<hex>  <name>" per archive, every file of out but itself, sums right.
	sums, err := os.Open(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(sums)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 || strings.ContainsAny(name, "/ ") {
			t.Errorf("SHA256SUMS line %q is not sha256sum's format", sc.Text())
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Errorf("SHA256SUMS lists %s: %v", name, err)
			continue
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
		listed[name] = true
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "SHA256SUMS" && !listed[e.Name()] {
			t.Errorf("%s is not in SHA256SUMS", e.Name())
		}
	}
	if want := 2 * len(plats); len(listed) != want {
		t.Errorf("SHA256SUMS lists %d archives, want %d (binaries and plugin for %v)", len(listed), want, plats)
	}

	for _, p := range plats {
		goos, goarch, _ := strings.Cut(p, "/")
		ext, exe := ".tar.gz", ""
		if goos == "windows" {
			ext, exe = ".zip", ".exe"
		}
		base := "cairn-" + ver + "-" + goos + "-" + goarch
		pbase := "cairn-plugin-" + ver + "-" + goos + "-" + goarch
		bins := readArchive(t, filepath.Join(out, base+ext), base)
		plugin := readArchive(t, filepath.Join(out, pbase+ext), pbase)

		// The hooks the plugin wires, from its hooks.json: the table, as cairn plugin build saw it.
		var hooks struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Command string    `json:"command"`
					Args    *[]string `json:"args"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(plugin["hooks/hooks.json"].data, &hooks); err != nil {
			t.Fatalf("%s: hooks/hooks.json: %v", pbase, err)
		}
		wanted := []string{"bin/cairn" + exe}
		for ev, groups := range hooks.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					rel, ok := strings.CutPrefix(h.Command, "${CLAUDE_PLUGIN_ROOT}/")
					if !ok || h.Args == nil || !strings.HasSuffix(rel, exe) {
						t.Errorf("%s: %s runs %q (args %v): want exec form, a %q file of the plugin", pbase, ev, h.Command, h.Args, exe)
					}
					wanted = append(wanted, rel)
				}
			}
		}
		if len(wanted) < 2 {
			t.Errorf("%s wires no hooks", pbase)
		}
		var mcp struct {
			MCPServers map[string]struct{ Command string } `json:"mcpServers"`
		}
		json.Unmarshal(plugin[".mcp.json"].data, &mcp)
		if c := mcp.MCPServers["cairn"].Command; c != "${CLAUDE_PLUGIN_ROOT}/bin/cairn"+exe {
			t.Errorf("%s: MCP server runs %q", pbase, c)
		}
		for _, f := range []string{".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "skills/session/SKILL.md"} {
			if _, ok := plugin[f]; !ok {
				t.Errorf("%s lacks %s", pbase, f)
			}
		}
		for _, f := range []string{"README.md", "LICENSE"} {
			if _, ok := bins[f]; !ok {
				t.Errorf("%s lacks %s", base, f)
			}
		}
		if !bytes.Equal(bins["README.md"].data, archiveReadme(ver, goos, goarch)) {
			t.Errorf("%s: README.md is not the archive's own", base)
		}
		for _, rel := range wanted {
			for _, arch := range []struct {
				name  string
				files map[string]entry
			}{{base, bins}, {pbase, plugin}} {
				f, ok := arch.files[rel]
				if !ok {
					t.Errorf("%s lacks %s", arch.name, rel)
					continue
				}
				if goos != "windows" && f.mode&0o111 == 0 {
					t.Errorf("%s: %s is not executable (mode %v)", arch.name, rel, f.mode)
				}
				checkBinary(t, arch.name+"/"+rel, f.data, ver, goos, goarch)
			}
			if !bytes.Equal(bins[rel].data, plugin[rel].data) {
				t.Errorf("%s differs between %s and %s", rel, base, pbase)
			}
		}
	}
}

// checkBinary reads a binary's build information and version stamp, as cairn doctor does.
func checkBinary(t *testing.T, name string, data []byte, ver, goos, goarch string) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	v, pkg, err := setup.Stamp(tmp)
	if err != nil || v != ver || !strings.HasPrefix(pkg, "github.com/cairn-hooks/cairn/hooks/") {
		t.Errorf("%s: version %q of %q (%v), want %s of one of cairn's binaries", name, v, pkg, err, ver)
	}
	bi, err := buildinfo.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range bi.Settings {
		if s.Key == "GOOS" || s.Key == "GOARCH" || s.Key == "-trimpath" {
			got = append(got, s.Key+"="+s.Value)
		}
	}
	slices.Sort(got)
	if want := []string{"-trimpath=true", "GOARCH=" + goarch, "GOOS=" + goos}; !slices.Equal(got, want) {
		t.Errorf("%s: built with %v, want %v", name, got, want)
	}
}

type entry struct {
	data []byte
	mode os.FileMode
}

// readArchive returns the files of a .tar.gz or .zip, named relative to its one top directory,
// which must be top.
func readArchive(t *testing.T, path, top string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	add := func(name string, mode os.FileMode, r io.Reader) {
		rel, ok := strings.CutPrefix(name, top+"/")
		if !ok {
			t.Errorf("%s: %s is outside %s/", path, name, top)
			return
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		out[rel] = entry{data, mode}
	}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			add(f.Name, f.Mode(), rc)
			rc.Close()
		}
		return out
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			add(h.Name, os.FileMode(h.Mode), tr)
		}
	}
	return out
}

// touchSources opens every Go source the release builds, and the files it packs: go test caches
// a pass keyed by the files a test opens, and the builds run in child processes.
func touchSources(t *testing.T) {
	t.Helper()
	for _, d := range []string{"../../hooks", "../../pkg"} {
		filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				if f, err := os.Open(p); err == nil {
					f.Close()
				}
			}
			return nil
		})
	}
	for _, f := range []string{"../../README.md", "../../LICENSE", "../../go.mod", "../../go.sum"} {
		os.ReadFile(f)
	}
}

// TestArchiveReadme checks the README a binaries archive ships: it speaks of the archive, not
// of a checkout (no install.sh to run, no go test), every file it names under bin/ is one the
// archive holds, and the directory it moves is the one the archive unpacks to.
func TestArchiveReadme(t *testing.T) {
	entries, err := os.ReadDir("../../hooks")
	if err != nil {
		t.Fatal(err)
	}
	for _, plat := range []string{"linux/amd64", "darwin/arm64", "windows/amd64"} {
		goos, goarch, _ := strings.Cut(plat, "/")
		text := string(archiveReadme("v1.2.3", goos, goarch))
		if strings.Contains(text, "{{") {
			t.Errorf("%s: a placeholder is left", plat)
		}
		for _, s := range []string{"./install.sh", "go test", "go install", " hooks/"} {
			if strings.Contains(text, s) {
				t.Errorf("%s: the archive README names %q, which the archive lacks", plat, s)
			}
		}
		has := map[string]bool{}
		for _, e := range entries {
			has["bin/"+e.Name()+exeSuffix(goos)] = true
		}
		named := 0
		for _, m := range regexp.MustCompile(`bin/[a-z-]+(\.exe)?`).FindAllString(text, -1) {
			named++
			if !has[m] {
				t.Errorf("%s: the README names %s, which the archive does not hold", plat, m)
			}
		}
		if named == 0 {
			t.Errorf("%s: the README names no binary", plat)
		}
		if want := fmt.Sprintf("mv cairn-v1.2.3-%s-%s ", goos, goarch); !strings.Contains(text, want) {
			t.Errorf("%s: the README does not move the directory the archive unpacks to (%q)", plat, want)
		}
	}
}
