package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// FuzzInstall feeds arbitrary bytes to Install and Uninstall. Each either refuses with
// ErrInvalid, or returns valid JSON that is idempotent, holds exactly cairn's planned entries
// (or none, after Uninstall), and — once cairn's entries are taken out of both — means the same
// as the input.
func FuzzInstall(f *testing.F) {
	for _, s := range []string{
		"", "{}", "[]", `{"a":1}`, userFile,
		"{\r\n\t\"hooks\": {}\r\n}",
		`{"hooks":{"PreCompact":[{"matcher":"","hooks":[{"type":"command","command":"/x/cairn/bin/precompact","args":[]}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"'/x/cairn/bin/sessionend' a"},{"type":"command","command":"b"}]}],"PreCompact":[]}}`,
		`{"permissions":{"allow":["Bash(/x/cairn/bin/cairn:*)","Read"],"deny":[]},"hooks":{"SessionStart":[1,{"hooks":{}}]}}`,
		`{"a":{"a":[1,2,{"b":null}]},"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkInstall(t, in, fuzzPlan) })
}

var fuzzPlan = Plan{Hooks: []Hook{
	{Event: "SessionStart", Command: "/p/.claude/cairn/bin/sessionstart", Timeout: 10},
	{Event: "PreCompact", Command: "/p/.claude/cairn/bin/precompact", Args: []string{"--x"}, Timeout: 30},
}, Rule: "Bash(/p/.claude/cairn/bin/cairn:*)", RuleMode: AddRule}

// checkInstall checks Install and Uninstall on in: each either refuses with ErrInvalid, or
// returns valid JSON that is idempotent, holds exactly p's entries (or none, after Uninstall),
// and means the same as in once cairn's entries are taken out of both.
func checkInstall(t *testing.T, in []byte, p Plan) {
	t.Helper()
	out, err := Install(in, p, owner)
	if err != nil {
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("Install: unexpected error %v", err)
		}
		var v map[string]any
		isObject := json.Unmarshal(in, &v) == nil && v != nil // "null" decodes into a nil map
		if isObject && !bytes.Contains(in, []byte("hooks")) && !bytes.Contains(in, []byte("permissions")) {
			t.Fatalf("Install refused a plain JSON object: %v", err)
		}
		if _, _, uerr := Uninstall(in, owner); uerr == nil && !isBlank(in) && !isObject {
			t.Fatalf("Uninstall accepted what Install refused as not a JSON object")
		}
		return
	}
	if !json.Valid(out) {
		t.Fatalf("Install output is not valid JSON:\n%s", out)
	}
	again, err := Install(out, p, owner)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("Install is not idempotent (err %v):\n%s\nthen:\n%s", err, out, again)
	}
	es, err := Entries(out, owner)
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string][]Entry{}
	n := 0
	for _, e := range es {
		if e.Cairn {
			mine[e.Event] = append(mine[e.Event], e)
			n++
		}
	}
	if n != len(p.Hooks) {
		t.Fatalf("%d cairn entries after Install; want %d:\n%s", n, len(p.Hooks), out)
	}
	for _, h := range p.Hooks {
		if len(mine[h.Event]) != 1 {
			t.Fatalf("%d cairn entries for %s; want 1:\n%s", len(mine[h.Event]), h.Event, out)
		}
		e := mine[h.Event][0]
		if e.Command != h.Command || !e.Exec || e.Matcher != "" || e.Timeout != float64(h.Timeout) ||
			!reflect.DeepEqual(append([]string{}, e.Args...), append([]string{}, h.Args...)) {
			t.Fatalf("entry %+v; want %+v:\n%s", e, h, out)
		}
	}
	rulesIn, rulesOut := ownedRules(t, in), ownedRules(t, out)
	switch {
	case p.RuleMode == AddRule && (len(rulesOut) != 1 || rulesOut[0] != p.Rule),
		p.RuleMode == keepRule && len(rulesIn) > 0 && (len(rulesOut) != 1 || rulesOut[0] != p.Rule),
		p.RuleMode == keepRule && len(rulesIn) == 0 && len(rulesOut) != 0,
		p.RuleMode == RemoveRule && len(rulesOut) != 0:
		t.Fatalf("mode %d: cairn's rules %q became %q:\n%s", p.RuleMode, rulesIn, rulesOut, out)
	}
	before := stripped(t, in)
	if after := stripped(t, out); !reflect.DeepEqual(before, after) {
		t.Fatalf("Install changed other content:\nin:  %s\nout: %s\nbefore: %#v\nafter:  %#v", in, out, before, after)
	}

	un, _, err := Uninstall(out, owner)
	if err != nil {
		t.Fatalf("Uninstall of Install's output: %v", err)
	}
	if !json.Valid(un) {
		t.Fatalf("Uninstall output is not valid JSON:\n%s", un)
	}
	es, _ = Entries(un, owner)
	for _, e := range es {
		if e.Cairn {
			t.Fatalf("cairn entry left after Uninstall: %+v\n%s", e, un)
		}
	}
	if after := stripped(t, un); !reflect.DeepEqual(before, after) {
		t.Fatalf("Uninstall changed other content:\nin:  %s\nout: %s", in, un)
	}
}

// stripped decodes a settings file and takes cairn's entries out, with every hook group, event
// array, "hooks", "permissions.allow" and "permissions" that is then empty: the meaning that
// Install and Uninstall must leave alone.
func stripped(t *testing.T, data []byte) map[string]any {
	m := map[string]any{}
	if isBlank(data) {
		return m
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	if hooks, ok := m["hooks"].(map[string]any); ok {
		for ev, arr := range hooks {
			groups, ok := arr.([]any)
			if !ok {
				continue
			}
			var keep []any
			for _, g := range groups {
				if gm, ok := g.(map[string]any); ok {
					if hs, ok := gm["hooks"].([]any); ok {
						var left []any
						for _, h := range hs {
							if !ownedHandler(h) {
								left = append(left, h)
							}
						}
						if len(left) == 0 {
							continue
						}
						gm["hooks"] = left
					}
				}
				keep = append(keep, g)
			}
			if len(keep) == 0 {
				delete(hooks, ev)
			} else {
				hooks[ev] = keep
			}
		}
		if len(hooks) == 0 {
			delete(m, "hooks")
		}
	}
	if perms, ok := m["permissions"].(map[string]any); ok {
		if allow, ok := perms["allow"].([]any); ok {
			var left []any
			for _, r := range allow {
				if s, ok := r.(string); !ok || !owner.ownsRule(s) {
					left = append(left, r)
				}
			}
			if len(left) == 0 {
				delete(perms, "allow")
			} else {
				perms["allow"] = left
			}
		}
		if len(perms) == 0 {
			delete(m, "permissions")
		}
	}
	return m
}

func ownedHandler(h any) bool {
	m, ok := h.(map[string]any)
	if !ok || m["type"] != "command" {
		return false
	}
	cmd, ok := m["command"].(string)
	if !ok {
		return false
	}
	_, exec := m["args"].([]any)
	return owner.OwnsCommand(cmd, exec)
}

// TestGenerated runs checkInstall on settings files generated with the shapes that matter —
// events with groups of cairn's, other people's and malformed handlers, permission rules, empty
// containers — in several layouts (compact, indented with spaces or tabs, CRLF), each also
// installed with every rule mode. Random bytes (FuzzInstall) seldom reach these shapes.
func TestGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		v := genSettings(r)
		var data []byte
		switch r.IntN(4) {
		case 0:
			data, _ = json.Marshal(v)
		case 1:
			data, _ = json.MarshalIndent(v, "", "  ")
		case 2:
			data, _ = json.MarshalIndent(v, "", "\t")
			data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
		default:
			data, _ = json.MarshalIndent(v, "", "    ")
			data = append(data, '\n')
		}
		p := fuzzPlan
		p.RuleMode = RuleMode(i % 3)
		t.Run(strconv.Itoa(i), func(t *testing.T) { checkInstall(t, data, p) })
		if t.Failed() {
			t.Fatalf("input:\n%s", data)
		}
	}
}

func genSettings(r *rand.Rand) map[string]any {
	pick := func(xs ...any) any { return xs[r.IntN(len(xs))] }
	handler := func() any {
		return pick(
			map[string]any{"type": "command", "command": "/p/.claude/cairn/bin/precompact", "args": []any{}},
			map[string]any{"type": "command", "command": "/old/cairn/bin/sessionstart", "args": []any{}, "timeout": 5},
			map[string]any{"type": "command", "command": "'/old dir/cairn/bin/sessionend' --x"},
			map[string]any{"type": "command", "command": "/usr/local/bin/precompact"},
			map[string]any{"type": "command", "command": "say done", "timeout": 3},
			map[string]any{"type": "http", "url": "http://localhost", "command": "/p/.claude/cairn/bin/precompact"},
			"not a handler",
		)
	}
	m := map[string]any{}
	if r.IntN(3) > 0 {
		m["model"] = "opus"
	}
	if r.IntN(5) > 0 {
		hooks := map[string]any{}
		for _, ev := range []string{"SessionStart", "PreCompact", "Stop", "PostCompact"} {
			if r.IntN(2) == 0 {
				continue
			}
			var groups []any
			for range r.IntN(4) {
				g := map[string]any{}
				if r.IntN(2) == 0 {
					g["matcher"] = pick("", "compact", "auto")
				}
				hs := []any{}
				for range r.IntN(4) {
					hs = append(hs, handler())
				}
				g["hooks"] = hs
				groups = append(groups, g)
			}
			if groups == nil {
				groups = []any{}
			}
			hooks[ev] = groups
		}
		m["hooks"] = hooks
	}
	if r.IntN(2) == 0 {
		perms := map[string]any{}
		if r.IntN(4) > 0 {
			allow := []any{}
			for range r.IntN(4) {
				allow = append(allow, pick("Read", "Bash(/old/cairn/bin/cairn:*)", "Bash(/usr/bin/cairn:*)", 7))
			}
			perms["allow"] = allow
		}
		if r.IntN(2) == 0 {
			perms["deny"] = []any{}
		}
		m["permissions"] = perms
	}
	return m
}

// ownedRules returns cairn's rules in permissions.allow.
func ownedRules(t *testing.T, data []byte) []string {
	var v struct {
		Permissions struct {
			Allow []any `json:"allow"`
		} `json:"permissions"`
	}
	if !isBlank(data) && json.Unmarshal(data, &v) != nil {
		// permissions or allow of another type: Install left them alone
		return nil
	}
	var out []string
	for _, r := range v.Permissions.Allow {
		if s, ok := r.(string); ok && owner.ownsRule(s) {
			out = append(out, s)
		}
	}
	return out
}
