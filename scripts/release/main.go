// Command release builds cairn's release archives: for each platform, the binaries
// (cairn-<version>-<os>-<arch>.tar.gz, .zip for Windows) and the Claude Code plugin built from
// them by `cairn plugin build` (cairn-plugin-<version>-<os>-<arch>.tar.gz or .zip), every
// binary stamped with the version as install.sh stamps it, and a SHA256SUMS file that
// `sha256sum -c SHA256SUMS` checks.
//
//	go run ./scripts/release -out dist                       # every platform, version from git describe
//	go run ./scripts/release -out dist -version v0.4.0 -platforms linux/amd64,windows/amd64
//
// CAIRN_RELEASE_PLATFORMS is the default of -platforms. The archives are reproducible: entries
// sorted, owned by root, mode 0755 or 0644, dated at the commit being built (SOURCE_DATE_EPOCH
// when set), so the same sources give the same SHA256SUMS. It is a Go program rather than a
// shell script so that it needs nothing but Go (no tar, zip or sha256sum flavours to match).
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/version"
)

// allPlatforms are the platforms a release is built for: where Claude Code runs.
var allPlatforms = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Getenv); err != nil {
		fmt.Fprintf(os.Stderr, "release: error: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fl := flag.NewFlagSet("release", flag.ContinueOnError)
	out := fl.String("out", "dist", "directory to write the archives and SHA256SUMS into (must be new or empty)")
	ver := fl.String("version", "", "version to stamp (default: git describe --tags --always --dirty)")
	src := fl.String("src", ".", "cairn's source tree (the module root)")
	def := getenv("CAIRN_RELEASE_PLATFORMS")
	if def == "" {
		def = strings.Join(allPlatforms, ",")
	}
	plats := fl.String("platforms", def, "comma-separated GOOS/GOARCH list")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fl.Args())
	}
	root, err := filepath.Abs(*src)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("%s is not cairn's source tree: %v", root, err)
	}
	if *ver == "" {
		*ver = gitDescribe(ctx, root)
	}
	if *ver == "" || strings.ContainsAny(*ver, " \t\n;/\\") {
		return fmt.Errorf("version %q: one word, without ';' or slashes", *ver)
	}
	var platforms []string
	for _, p := range strings.Split(*plats, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !slices.Contains(allPlatforms, p) {
			return fmt.Errorf("platform %q is not one of %s", p, strings.Join(allPlatforms, ", "))
		}
		platforms = append(platforms, p)
	}
	if len(platforms) == 0 {
		return errors.New("no platform to build")
	}
	date, err := sourceDate(ctx, root, getenv)
	if err != nil {
		return err
	}

	dest, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty", dest)
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "cairn-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// The cairn that packages each platform's plugin runs here.
	host := filepath.Join(work, "host")
	if err := goBuild(ctx, root, runtime.GOOS, runtime.GOARCH, *ver, host, "./hooks/cairn"); err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return err
	}

	sums := map[string]string{}
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		bin := filepath.Join(work, goos+"-"+goarch, "bin")
		if err := goBuild(ctx, root, goos, goarch, *ver, bin, "./hooks/..."); err != nil {
			return err
		}
		plugin := filepath.Join(work, goos+"-"+goarch, "plugin")
		cmd := exec.CommandContext(ctx, filepath.Join(host, "cairn"+exeSuffix(runtime.GOOS)), "plugin", "build", "--bin", bin, "--out", plugin)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("cairn plugin build for %s: %v\n%s", p, err, b)
		}

		base := fmt.Sprintf("cairn-%s-%s-%s", *ver, goos, goarch)
		files, err := treeFiles(bin, "bin")
		if err != nil {
			return err
		}
		files = append(files, file{name: "LICENSE", data: license, mode: 0o644},
			file{name: "README.md", data: archiveReadme(*ver, goos, goarch), mode: 0o644})
		pfiles, err := treeFiles(plugin, "")
		if err != nil {
			return err
		}
		for _, a := range []struct {
			base  string
			files []file
		}{{base, files}, {fmt.Sprintf("cairn-plugin-%s-%s-%s", *ver, goos, goarch), pfiles}} {
			name, data, err := archive(goos, a.base, a.files, date)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dest, name), data, 0o644); err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			sums[name] = hex.EncodeToString(sum[:])
			fmt.Fprintf(stdout, "%s  %d bytes\n", name, len(data))
		}
	}
	var b strings.Builder
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n) // sha256sum's text format: two spaces
	}
	if err := os.WriteFile(filepath.Join(dest, "SHA256SUMS"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "SHA256SUMS: %d archives of cairn %s in %s; check them with: cd %s && sha256sum -c SHA256SUMS\n", len(names), *ver, dest, dest)
	return nil
}

// archiveReadmeText is the README of a binaries archive: the repository's README describes a
// checkout (install.sh, go test), which the archive does not hold.
//
//go:embed archive-readme.md
var archiveReadmeText string

// archiveReadme is the README.md of the binaries archive of ver for goos/goarch.
func archiveReadme(ver, goos, goarch string) []byte {
	return []byte(strings.NewReplacer("{{VERSION}}", ver, "{{PLATFORM}}", goos+"/"+goarch,
		"{{PLATFORM_DASH}}", goos+"-"+goarch, "{{EXE}}", exeSuffix(goos)).Replace(archiveReadmeText))
}

func exeSuffix(goos string) string {
	if goos == "windows" {
		return ".exe"
	}
	return ""
}

// goBuild builds pkgs for goos/goarch into dir, stamped with ver, as install.sh builds: with
// -trimpath, so no path of this machine ends up in a binary, and without cgo.
func goBuild(ctx context.Context, root, goos, goarch, ver, dir, pkgs string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", version.Flag(ver), "-o", dir+string(filepath.Separator), pkgs)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s for %s/%s: %v\n%s", pkgs, goos, goarch, err, b)
	}
	return nil
}

func gitDescribe(ctx context.Context, root string) string {
	cmd := exec.CommandContext(ctx, "git", "describe", "--tags", "--always", "--dirty")
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil {
		return "dev"
	}
	return strings.TrimSpace(string(b))
}

// sourceDate is the time every archive entry carries: SOURCE_DATE_EPOCH (the reproducible-builds
// convention), else the commit's, else the Unix epoch.
func sourceDate(ctx context.Context, root string, getenv func(string) string) (time.Time, error) {
	if s := getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %v", s, err)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	cmd := exec.CommandContext(ctx, "git", "log", "-1", "--format=%ct")
	cmd.Dir = root
	if b, err := cmd.Output(); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			return time.Unix(n, 0).UTC(), nil
		}
	}
	return time.Unix(0, 0).UTC(), nil
}

// file is one archive entry: a slash-separated name relative to the archive's top directory.
type file struct {
	name string
	data []byte
	mode fs.FileMode
}

// treeFiles reads every regular file under dir, named under prefix, keeping the executable bit.
func treeFiles(dir, prefix string) ([]file, error) {
	var out []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if fi.Mode().Perm()&0o111 != 0 || strings.HasSuffix(p, ".exe") {
			mode = 0o755
		}
		out = append(out, file{name: path.Join(prefix, filepath.ToSlash(rel)), data: data, mode: mode})
		return nil
	})
	return out, err
}

// archive packs files under the top directory base: a zip for Windows (what Explorer opens),
// a gzipped tar elsewhere (which keeps the executable bits). Entries are sorted and dated date.
func archive(goos, base string, files []file, date time.Time) (name string, data []byte, err error) {
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
	var buf bytes.Buffer
	if goos == "windows" {
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			h := &zip.FileHeader{Name: base + "/" + f.name, Method: zip.Deflate, Modified: date}
			h.SetMode(f.mode)
			w, err := zw.CreateHeader(h)
			if err != nil {
				return "", nil, err
			}
			if _, err := w.Write(f.data); err != nil {
				return "", nil, err
			}
		}
		if err := zw.Close(); err != nil {
			return "", nil, err
		}
		return base + ".zip", buf.Bytes(), nil
	}
	gz, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return "", nil, err
	}
	gz.ModTime = date
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	for _, f := range files {
		// Each directory once, before its first file, so every tar extracts it with its mode.
		parts := strings.Split(base+"/"+f.name, "/")
		for i := 1; i < len(parts); i++ {
			d := strings.Join(parts[:i], "/") + "/"
			if !dirs[d] {
				dirs[d] = true
				if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: date, Format: tar.FormatPAX}); err != nil {
					return "", nil, err
				}
			}
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: base + "/" + f.name, Mode: int64(f.mode), Size: int64(len(f.data)), ModTime: date, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return "", nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return "", nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return "", nil, err
	}
	if err := gz.Close(); err != nil {
		return "", nil, err
	}
	return base + ".tar.gz", buf.Bytes(), nil
}
