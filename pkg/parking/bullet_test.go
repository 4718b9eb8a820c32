package parking

import (
	"strings"
	"testing"
)

func TestParseBulletTolerant(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bullet
	}{
		{"- **fix-login** — User raised: fix the login. Pending: which provider?. Raised: 2026-03-01. Why: asked twice. How to apply: ask again.",
			Bullet{"fix-login", "User raised: fix the login. Pending: which provider?", "2026-03-01", "asked twice", "ask again"}},
		// En dash, double hyphen, plain hyphen and colon separators; * and + bullets.
		{"* **a** – Deferred: x. Context: y. Raised: 2026-03-01.", Bullet{"a", "Deferred: x. Context: y", "2026-03-01", "", ""}},
		{"+ **b** -- Side idea: x. Raised while: y. Raised: 2026-03-02", Bullet{"b", "Side idea: x. Raised while: y", "2026-03-02", "", ""}},
		{"- **c** - text", Bullet{"c", "text", "", "", ""}},
		{"- **d**: text. raised: 2026-01-31. why: w", Bullet{"d", "text", "2026-01-31", "w", ""}},
		// Bold field names, fields out of order, "How:" for "How to apply:".
		{"- **e** — s. **Why:** because. **How:** ask. **Raised:** 2026-02-03.", Bullet{"e", "s", "2026-02-03", "because", "ask"}},
		// No bold: a bare slug before a dash, or a slug derived from the summary.
		{"- fix-it — the summary", Bullet{"fix-it", "the summary", "", "", ""}},
		{"- Deferred: caching layer for the API. Context: perf. Raised: 2026-01-01", Bullet{"caching-layer-for-api", "Deferred: caching layer for the API. Context: perf", "2026-01-01", "", ""}},
		{"- `Tick Box` — x", Bullet{"tick-box", "x", "", "", ""}},
		{"- [ ] **boxed** — x", Bullet{"boxed", "x", "", "", ""}},
		// A slug that is not a slug is made one; an invalid date is no date.
		{"- **Fix The Login!** — x. Raised: 2026-13-01.", Bullet{"fix-the-login", "x", "", "", ""}},
		{"  - **indented** — x", Bullet{"indented", "x", "", "", ""}},
		{"- **dup** — x. Why: one. Why: two.", Bullet{"dup", "x", "", "one", ""}},
	} {
		got, ok := parseBullet(tc.in)
		if !ok || got != tc.want {
			t.Errorf("ParseBullet(%q)\n got %+v %v\nwant %+v", tc.in, got, ok, tc.want)
		}
	}
	for _, in := range []string{"", "-", "- ", "text", "-no-space", "## heading", "1. numbered"} {
		if b, ok := parseBullet(in); ok {
			t.Errorf("ParseBullet(%q) = %+v, want not a bullet", in, b)
		}
	}
}

func TestFormatCanonical(t *testing.T) {
	b := Bullet{Slug: "fix-login", Summary: "User raised: fix it. Pending: which one?", Raised: "2026-03-01", Why: "asked", How: "ask again"}
	want := "- **fix-login** — User raised: fix it. Pending: which one? Raised: 2026-03-01. Why: asked. How to apply: ask again."
	if got := format(b); got != want {
		t.Fatalf("Format\n got %q\nwant %q", got, want)
	}
	if back, ok := parseBullet(want); !ok || back != b {
		t.Fatalf("round trip: %+v", back)
	}
}

// Text that would forge a bullet, a heading, bold or a field is neutralised on write.
func TestFormatNeutralises(t *testing.T) {
	b := Bullet{
		Slug:    "x",
		Summary: "evil\n- **forged** — item. Raised: 1999-01-01\n## Heading\r\n**bold** __under__",
		Raised:  "2026-03-01",
		Why:     "a. How to apply: forged",
		How:     "Why: Raised: 1990-01-01",
	}
	line := format(b)
	if strings.ContainsAny(line, "\r\n") {
		t.Fatalf("line break survived: %q", line)
	}
	if strings.Count(line, "**") != 2 {
		t.Fatalf("bold survived: %q", line)
	}
	got, ok := parseBullet(line)
	if !ok || got.Slug != "x" || got.Raised != "2026-03-01" {
		t.Fatalf("forged fields read back: %+v from %q", got, line)
	}
	want := "- **x** — evil - *forged* — item. Raised - 1999-01-01 ## Heading *bold* _under_. Raised: 2026-03-01. Why: a. How to apply - forged. How to apply: Why - Raised - 1990-01-01."
	if line != want {
		t.Fatalf("Format\n got %q\nwant %q", line, want)
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the Login":           "fix-the-login",
		"  --a__b--  ":            "a-b",
		"ÜBER café":               "ber-caf",
		"":                        "",
		"!!!":                     "",
		strings.Repeat("ab-", 40): strings.TrimSuffix(strings.Repeat("ab-", 21), "-"),
	} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
		if got := Slugify(in); got != "" && !ValidSlug(got) {
			t.Errorf("Slugify(%q) = %q is not valid", in, got)
		}
	}
	for _, bad := range []string{"", "Upper", "a--b", "-a", "a-", "a b", "a_b"} {
		if ValidSlug(bad) {
			t.Errorf("ValidSlug(%q) = true", bad)
		}
	}
}

// FuzzParseBullet: parsing never panics, a parsed bullet formats to a valid one-line bullet,
// parse → format → parse is stable, and the dates-only parse (raisedOf) reads the date the whole
// parse reads.
func FuzzParseBullet(f *testing.F) {
	for _, s := range []string{
		"- **fix-login** — User raised: fix. Pending: which?. Raised: 2026-03-01. Why: w. How to apply: h.",
		"* **a** – x. **Why:** y",
		"- fix-it — summary",
		"- Raised: 2026-01-01",
		"- **",
		"- a. Why: Raised: b",
		"- **x** — ?. Why: !.",
		"- **x** — a - why: b",
		"+ [x] `k` : v (raised: 2020-02-30)",
		"- **x** — y. Raised: 2026-11-20 .\u00a0",
		"- **x** — y. Raised: 2026-11-2-.",
		"- **x** — y. Raised: **2026-11-20**",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, ok := parseBullet(s)
		if raised, rok := raisedOf(s); rok != ok || raised != b.Raised {
			t.Fatalf("raisedOf(%q) = %q, %v; parseBullet: %q, %v", s, raised, rok, b.Raised, ok)
		}
		if !ok {
			return
		}
		line := format(b)
		if strings.ContainsAny(line, "\r\n") || !ValidSlug(b.Slug) {
			t.Fatalf("bad line %q from %q", line, s)
		}
		b2, ok := parseBullet(line)
		if !ok || b2 != b {
			t.Fatalf("unstable:\n in   %q\n b    %+v\n line %q\n b2   %+v", s, b, line, b2)
		}
		if format(b2) != line {
			t.Fatalf("format unstable: %q", line)
		}
	})
}
