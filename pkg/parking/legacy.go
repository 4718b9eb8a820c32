package parking

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Legacy parked items are the session-open-*.md memory files of seed 000, one item per file,
// in Claude Code's per-project memory directory. cairn reads them and removes them when they are
// archived or expire; it never writes one.
const (
	legacyPrefix = "session-open-"
	legacySuffix = ".md"
	// A parked item is a few hundred bytes and there are at most ten, so these bounds never
	// bind on real data; they keep a hook's time and memory bounded whatever the directory holds
	// (SPEC §8: 16 MiB peak): at most maxLegacyEntries directory entries are looked at, at most
	// maxLegacyFiles items read, and a file over maxLegacySize is not an item.
	maxLegacyEntries = 10000
	maxLegacyFiles   = 200
	maxLegacySize    = 16 << 10
)

// LegacyDirs returns the memory directories where seed 000 kept parked items for the project
// at root: <config>/projects/<slug>/memory under Claude Code's slug spelling and under seed
// 000's (see project.Slug and project.LegacySlug), without duplicates. It returns nil when
// config is "".
func LegacyDirs(config, root string) []string {
	if config == "" || root == "" {
		return nil
	}
	var dirs []string
	for _, slug := range []string{project.Slug(root), project.LegacySlug(root)} {
		d := filepath.Join(config, "projects", slug, "memory")
		if slug != "" && (len(dirs) == 0 || dirs[0] != d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// LegacyWriter returns the writer that removes legacy files: confined to dirs, and printing
// instead of removing when w is a dry run.
func LegacyWriter(w safefile.Writer, dirs []string) safefile.Writer {
	if d, ok := w.(safefile.DryRun); ok {
		return safefile.DryRun{Out: d.Out, Roots: dirs}
	}
	return safefile.Disk{Roots: dirs}
}

// legacyFile is one session-open-*.md file.
type legacyFile struct {
	path      string
	mod       time.Time
	slug      string
	name      string
	desc      string
	why, how  string
	text      string // the whole file, for the audit log
	searchFor string // lowercased name, description and body, for archive matching
}

// readLegacy reads the legacy files of dirs, newest first. A missing directory holds nothing;
// entries that are not regular files (symlinks included) or are too large are skipped.
func readLegacy(dirs []string) ([]legacyFile, error) {
	var out []legacyFile
	var firstErr error
	for _, dir := range dirs {
		d, err := os.Open(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		for seen := 0; seen < maxLegacyEntries && len(out) < maxLegacyFiles; {
			ents, err := d.ReadDir(256)
			seen += len(ents)
			for _, e := range ents {
				n := e.Name()
				if !strings.HasPrefix(n, legacyPrefix) || !strings.HasSuffix(n, legacySuffix) || !e.Type().IsRegular() || len(out) >= maxLegacyFiles {
					continue
				}
				if lf, ok := readLegacyFile(filepath.Join(dir, n)); ok {
					out = append(out, lf)
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					firstErr = cmpErr(firstErr, err)
				}
				break
			}
		}
		d.Close()
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].mod.Equal(out[j].mod) {
			return out[i].mod.After(out[j].mod)
		}
		return out[i].path < out[j].path
	})
	return out, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func readLegacyFile(path string) (legacyFile, bool) {
	data, fi, err := safefile.ReadFile(path, maxLegacySize)
	if err != nil {
		return legacyFile{}, false
	}
	// Seed 000's files carry flat "name: …" / "description: …" frontmatter; a line reader takes
	// them as written (a YAML parser refuses the common "description: Deferred: x") and keeps the
	// YAML library out of the hooks that run on every prompt.
	var meta struct{ Name, Description string }
	var body []byte
	meta.Name, meta.Description, body = looseFrontmatter(data)
	lf := legacyFile{
		path: path,
		mod:  fi.ModTime(),
		name: strings.ToValidUTF8(strings.TrimSpace(meta.Name), "\uFFFD"),
		desc: oneLine(meta.Description),
		text: string(data),
	}
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), legacyPrefix), legacySuffix)
	if len(base) > len(DateLayout)+1 && parseDate(base[len(base)-len(DateLayout):]) != "" && base[len(base)-len(DateLayout)-1] == '-' {
		base = base[:len(base)-len(DateLayout)-1]
	}
	lf.slug = Slugify(lf.name)
	if lf.slug == "" {
		lf.slug = Slugify(base)
	}
	if lf.slug == "" {
		lf.slug = "item"
	}
	if lf.name == "" {
		lf.name = lf.slug
	}
	for _, l := range strings.Split(string(body), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case hasFold(t, "**why:**"):
			lf.why = oneLine(t[len("**why:**"):])
		case hasFold(t, "**how to apply:**"):
			lf.how = oneLine(t[len("**how to apply:**"):])
		case lf.desc == "":
			lf.desc = oneLine(t)
		}
	}
	lf.searchFor = strings.ToLower(lf.name + "\n" + lf.desc + "\n" + string(body))
	return lf, true
}

// looseFrontmatter reads "key: value" lines between "---" lines, taking everything after the
// first ":" as the value, without the quotes YAML allows around it. Without a frontmatter block,
// the whole file is the body.
func looseFrontmatter(data []byte) (name, desc string, body []byte) {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return "", "", data
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return "", "", data
	}
	for _, l := range strings.Split(rest[:end], "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = unquote(strings.TrimSpace(v))
		switch strings.TrimSpace(k) {
		case "name":
			name = v
		case "description":
			desc = v
		}
	}
	body = []byte(rest[end+len("\n---"):])
	if i := strings.IndexByte(string(body), '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = nil
	}
	return name, desc, body
}

// unquote reads a YAML scalar written in quotes: double quotes with backslash escapes (read as
// Go's, which YAML's are a superset of for what people write), single quotes with ” for '.
// Anything else is taken as written.
func unquote(v string) string {
	if len(v) < 2 || v[len(v)-1] != v[0] {
		return v
	}
	switch v[0] {
	case '"':
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	case '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

func hasFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// oneLine joins s onto one line, for display.
func oneLine(s string) string {
	return collapse(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD")))
}
