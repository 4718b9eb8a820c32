// Package settings adds, replaces and removes cairn's entries in a Claude Code settings.json —
// its hook handlers and its optional Bash permission rule — and disturbs nothing else: not the
// other hooks, not the other keys, not their order, not the file's indentation or line ends.
//
// It never re-marshals the file. gjson locates each value's byte span in the original text
// (Result.Index and Raw), and every change is a splice of new JSON text into those bytes, laid
// out like its neighbours: an entry appended to an array copies the separator and indentation
// of the entries before it; a key added to an empty object goes one indentation level deeper
// than the object's line; a one-line file stays on one line. A removal takes the separator that
// joined the entry to its neighbour, so uninstalling restores the bytes that were there before
// the install, and a container (an event's array, the "hooks" object, "permissions.allow") that
// becomes empty because cairn's entry left goes too. A container that was already empty is left
// alone. (A file cannot say who made a container, so one that was empty before an install, such
// as a bare "hooks": {}, is gone after the uninstall; to Claude Code that means the same.) Files
// that are not a JSON object, or that are shaped where cairn must write in a way
// Claude Code would not read (a "hooks" that is not an object, a key given twice), are refused
// with ErrInvalid and never changed.
//
// cairn's entries are recognised by the executable they run (see Owner), so an upgrade replaces
// only them, wherever the older version put them, and uninstall removes only them.
//
// It is a part of package setup, which alone uses it, kept as a package of its own because it
// works on bytes only: it reads no file and knows no scope, so its fuzz test (FuzzInstall) drives
// the whole of it.
package settings

import (
	"errors"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Hook is one hook handler cairn registers for Event. It is written in exec form — "args" is
// present, even when empty, so Claude Code spawns Command directly with no shell (an empty list
// selects exec form, testscripts/e2e/FINDINGS.md) — unless Shell is set, and under an empty
// matcher, because cairn's binaries gate themselves on source, trigger and tool (a matcher is not
// to be relied on: docs/DESIGN.md, Facts about Claude Code), or with none at all when NoMatcher
// is set. Timeout is in seconds; 0 leaves it out.
type Hook struct {
	Event   string
	Command string
	Args    []string
	Timeout int
	// Shell writes the handler without "args": Claude Code runs Command through /bin/sh, so it
	// must be a shell command (the path quoted). Clients before exec form (2.1.139) run every
	// command so and ignore "args"; the caller decides by the client's version.
	Shell bool
	// NoMatcher writes the group without a "matcher": PreToolUse's, which Claude Code runs before
	// every tool call and, from 2.1.288, fails closed when its matcher fails to match.
	NoMatcher bool
}

// RuleMode says what Install does with cairn's Bash permission rule.
type RuleMode int

const (
	// keepRule keeps a cairn rule that is already there, updated to Plan.Rule (an upgrade moves
	// the binary), and adds none.
	keepRule RuleMode = iota
	// AddRule makes Plan.Rule present in permissions.allow.
	AddRule
	// RemoveRule removes cairn's rules.
	RemoveRule
)

// Plan is what Install wires into a settings file.
type Plan struct {
	Hooks    []Hook
	Rule     string // e.g. "Bash(/home/me/.claude/cairn/bin/cairn:*)"
	RuleMode RuleMode
	// MCPRules are the permission rules for cairn's MCP tools ("mcp__cairn__search", or
	// "mcp__cairn" for all of them) that permissions.allow must hold: cairn's others are removed.
	MCPRules []string
}

// MCPServer is the name cairn's MCP server is registered under: its tools are mcp__cairn__*.
const MCPServer = "cairn"

// isMCPRule reports whether rule allows cairn's MCP server or one of its tools.
func isMCPRule(rule string) bool {
	return rule == "mcp__"+MCPServer || strings.HasPrefix(rule, "mcp__"+MCPServer+"__")
}

// Entry is one command hook handler found in a settings file.
type Entry struct {
	Event   string   // the key of the event's array, e.g. "PreCompact"
	Matcher string   // the group's matcher; "" when absent
	Command string   // the handler's command
	Args    []string // its args, when in exec form
	Exec    bool     // "args" is present: Claude Code spawns Command directly, no shell
	Timeout float64  // seconds; 0 when absent
	Cairn   bool     // the handler runs one of cairn's hook binaries (see Owner)
}

// maxEdits bounds the edit loops; each edit removes one of cairn's entries, so a file would need
// that many of them to reach it.
const maxEdits = 100000

var errTooMany = errors.New("settings: too many of cairn's entries to remove")

// Install returns data with p wired in. Blank data (a missing or empty file) is an empty object.
// For each hook, the first handler group of its event that holds only cairn's handlers is
// replaced by the new one (left byte for byte when it is the same); when there is none, the new
// group is appended to the event's array, which is created (and "hooks" with it) when missing.
// Every other handler of cairn's — a duplicate, one left in a group with other people's handlers,
// one under an event cairn no longer uses — is removed. Install is idempotent: installing into
// its own output returns the same bytes.
func Install(data []byte, p Plan, o Owner) ([]byte, error) {
	d, err := load(data)
	if err != nil {
		return nil, err
	}
	if err := d.checkShape(p); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, h := range p.Hooks {
		want[h.Event] = true
	}
	for n := 0; ; n++ {
		hs, err := d.scan(o)
		if err != nil {
			return nil, err
		}
		s := stray(hs, want)
		if s == nil {
			break
		}
		if n == maxEdits {
			return nil, errTooMany
		}
		d.removeChain(s.chain)
	}
	for _, h := range p.Hooks {
		if err := d.wire(h, o); err != nil {
			return nil, err
		}
	}
	if err := d.rule(p, o); err != nil {
		return nil, err
	}
	if err := d.mcpRules(p.MCPRules); err != nil {
		return nil, err
	}
	return d.b, nil
}

// Uninstall returns data without cairn's hook handlers and permission rules, and how many it
// removed. With none to remove, data is returned as it is, blank or not.
func Uninstall(data []byte, o Owner) ([]byte, int, error) {
	if isBlank(data) {
		return data, 0, nil
	}
	d, err := load(data)
	if err != nil {
		return nil, 0, err
	}
	removed := 0
	for {
		hs, err := d.scan(o)
		if err != nil {
			return nil, 0, err
		}
		i := slices.IndexFunc(hs, func(h handler) bool { return h.Cairn })
		if i < 0 {
			break
		}
		if removed == maxEdits {
			return nil, 0, errTooMany
		}
		d.removeChain(hs[i].chain)
		removed++
	}
	for {
		rs, err := d.rulesWhere(func(r string) bool { return o.ownsRule(r) || isMCPRule(r) })
		if err != nil {
			return nil, 0, err
		}
		if len(rs) == 0 {
			break
		}
		if removed == maxEdits {
			return nil, 0, errTooMany
		}
		d.removeChain(rs[0])
		removed++
	}
	if removed == 0 {
		return data, 0, nil
	}
	return d.b, removed, nil
}

// Entries returns the command hook handlers of a settings file, in file order. Blank data has
// none.
func Entries(data []byte, o Owner) ([]Entry, error) {
	if isBlank(data) {
		return nil, nil
	}
	d, err := load(data)
	if err != nil {
		return nil, err
	}
	hs, err := d.scan(o)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(hs))
	for i, h := range hs {
		out[i] = h.Entry
	}
	return out, nil
}

// Empty reports whether data is blank or an object with no keys: a settings file that says
// nothing, which uninstall may delete.
func Empty(data []byte) bool {
	if isBlank(data) {
		return true
	}
	if validate(data) != nil {
		return false
	}
	return len(items(gjson.ParseBytes(data))) == 0
}

// handler is a command hook handler found by scan, with the path that leads to it.
type handler struct {
	Entry
	group     int    // its group's index in the event's array
	cairnOnly bool   // every handler of its group is cairn's
	chain     []step // root → "hooks" → event → group → handler
}

// scan finds every command handler under "hooks". Groups and handlers that are not shaped as
// Claude Code reads them are skipped: they are nobody's that cairn could recognise.
func (d *doc) scan(o Owner) ([]handler, error) {
	r := d.root()
	rits := items(r)
	hi, n := lookup(rits, "hooks")
	if n > 1 {
		return nil, invalid(`the key "hooks" appears %d times; Claude Code reads only the last: merge them by hand`, n)
	}
	if hi < 0 || !rits[hi].val.IsObject() {
		return nil, nil
	}
	hooks := rits[hi].val
	hits := items(hooks)
	var out []handler
	for ei, e := range hits {
		if _, n := lookup(hits, e.key.Str); n > 1 {
			return nil, invalid(`"hooks" has the event %q %d times; Claude Code reads only the last: merge them by hand`, e.key.Str, n)
		}
		if !e.val.IsArray() {
			continue
		}
		gits := items(e.val)
		for gi, g := range gits {
			if !g.val.IsObject() {
				continue
			}
			mits := items(g.val)
			li, n := lookup(mits, "hooks")
			if n > 1 {
				return nil, invalid(`a group of hooks.%s has the key "hooks" %d times: merge them by hand`, e.key.Str, n)
			}
			if li < 0 || !mits[li].val.IsArray() {
				continue
			}
			matcher, _ := str(mits, "matcher")
			list := mits[li].val
			lits := items(list)
			first := len(out)
			all := len(lits) > 0
			for hj, h := range lits {
				ent, ok := entry(h.val, o)
				all = all && ok && ent.Cairn
				if !ok {
					continue
				}
				ent.Event, ent.Matcher = e.key.Str, matcher
				out = append(out, handler{Entry: ent, group: gi, chain: []step{
					{r, rits, hi}, {hooks, hits, ei}, {e.val, gits, gi}, {list, lits, hj},
				}})
			}
			for i := first; i < len(out); i++ {
				out[i].cairnOnly = all
			}
		}
	}
	return out, nil
}

// entry reads a handler object: a command handler, or ok is false.
func entry(v gjson.Result, o Owner) (e Entry, ok bool) {
	if !v.IsObject() {
		return e, false
	}
	its := items(v)
	if typ, _ := str(its, "type"); typ != "command" {
		return e, false
	}
	if e.Command, ok = str(its, "command"); !ok {
		return e, false
	}
	if i, _ := lookup(its, "args"); i >= 0 && its[i].val.IsArray() {
		e.Exec = true
		for _, a := range its[i].val.Array() {
			e.Args = append(e.Args, a.String())
		}
	}
	if i, _ := lookup(its, "timeout"); i >= 0 && its[i].val.Type == gjson.Number {
		e.Timeout = its[i].val.Float()
	}
	e.Cairn = o.OwnsCommand(e.Command, e.Exec)
	return e, true
}

// stray returns the first of cairn's handlers that Install removes: all of them but the first
// cairn-only group of each event it wires, which wire replaces.
func stray(hs []handler, want map[string]bool) *handler {
	kept := map[string]int{}
	for _, h := range hs {
		if _, ok := kept[h.Event]; !ok && h.cairnOnly && want[h.Event] {
			kept[h.Event] = h.group
		}
	}
	for i, h := range hs {
		if g, ok := kept[h.Event]; h.Cairn && (!ok || g != h.group) {
			return &hs[i]
		}
	}
	return nil
}

// checkShape refuses a file Install would have to write into where it is not shaped as Claude
// Code reads it.
func (d *doc) checkShape(p Plan) error {
	rits := items(d.root())
	for _, k := range []string{"hooks", "permissions"} {
		if _, n := lookup(rits, k); n > 1 {
			return invalid("the key %q appears %d times; Claude Code reads only the last: merge them by hand", k, n)
		}
	}
	if hi, _ := lookup(rits, "hooks"); hi >= 0 {
		hooks := rits[hi].val
		if !hooks.IsObject() {
			return invalid(`"hooks" is not an object`)
		}
		hits := items(hooks)
		for _, h := range p.Hooks {
			if ei, _ := lookup(hits, h.Event); ei >= 0 && !hits[ei].val.IsArray() {
				return invalid(`"hooks.%s" is not an array`, h.Event)
			}
		}
	}
	if p.RuleMode != AddRule {
		return nil
	}
	pi, _ := lookup(rits, "permissions")
	if pi < 0 {
		return nil
	}
	if !rits[pi].val.IsObject() {
		return invalid(`"permissions" is not an object`)
	}
	pits := items(rits[pi].val)
	ai, n := lookup(pits, "allow")
	if n > 1 {
		return invalid(`"permissions" has the key "allow" %d times: merge them by hand`, n)
	}
	if ai >= 0 && !pits[ai].val.IsArray() {
		return invalid(`"permissions.allow" is not an array`)
	}
	return nil
}

// hookGroup is the matcher group cairn writes for h.
func hookGroup(h Hook) obj {
	handler := obj{{"type", "command"}, {"command", h.Command}}
	if !h.Shell {
		handler = append(handler, kv{"args", append([]string{}, h.Args...)})
	}
	if h.Timeout > 0 {
		handler = append(handler, kv{"timeout", h.Timeout})
	}
	if h.NoMatcher {
		return obj{{"hooks", []any{handler}}}
	}
	return obj{{"matcher", ""}, {"hooks", []any{handler}}}
}

// wire puts h's group in place: over the event's first cairn-only group, else at the end of
// the event's array.
func (d *doc) wire(h Hook, o Owner) error {
	group := hookGroup(h)
	hs, err := d.scan(o)
	if err != nil {
		return err
	}
	for _, x := range hs {
		if x.Event == h.Event && x.cairnOnly {
			at := x.chain[2]
			if g := at.its[at.i]; !d.sameJSON(g.val.Raw, group) {
				d.replace(g, group)
			}
			return nil
		}
	}
	r := d.root()
	rits := items(r)
	hi, _ := lookup(rits, "hooks")
	if hi < 0 {
		d.add(r, rits, "hooks", obj{{h.Event, []any{group}}})
		return nil
	}
	hooks := rits[hi].val
	hits := items(hooks)
	ei, _ := lookup(hits, h.Event)
	if ei < 0 {
		d.add(hooks, hits, h.Event, []any{group})
		return nil
	}
	d.add(hits[ei].val, items(hits[ei].val), "", group)
	return nil
}

// rules finds cairn's Bash permission rules in permissions.allow, each as the path that leads to
// it.
func (d *doc) rules(o Owner) ([][]step, error) { return d.rulesWhere(o.ownsRule) }

// mcpRules makes cairn's MCP rules in permissions.allow exactly want, in that order for the ones
// it adds: a rule of cairn's server that is not wanted, or a second copy, is removed.
func (d *doc) mcpRules(want []string) error {
	for n := 0; ; n++ {
		rs, err := d.rulesWhere(isMCPRule)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		drop := -1
		for i, chain := range rs {
			at := chain[2]
			r := at.its[at.i].val.Str
			if seen[r] || !slices.Contains(want, r) {
				drop = i
				break
			}
			seen[r] = true
		}
		if drop < 0 {
			for _, r := range want {
				if !seen[r] {
					if err := d.addAllow(r); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if n == maxEdits {
			return errTooMany
		}
		d.removeChain(rs[drop])
	}
}

// addAllow appends rule to permissions.allow, creating either when missing.
func (d *doc) addAllow(rule string) error {
	r := d.root()
	rits := items(r)
	pi, n := lookup(rits, "permissions")
	switch {
	case n > 1:
		return invalid(`the key "permissions" appears %d times; Claude Code reads only the last: merge them by hand`, n)
	case pi < 0:
		d.add(r, rits, "permissions", obj{{"allow", []string{rule}}})
		return nil
	case !rits[pi].val.IsObject():
		return invalid(`"permissions" is not an object`)
	}
	perms := rits[pi].val
	pits := items(perms)
	ai, n := lookup(pits, "allow")
	switch {
	case n > 1:
		return invalid(`"permissions" has the key "allow" %d times: merge them by hand`, n)
	case ai < 0:
		d.add(perms, pits, "allow", []string{rule})
		return nil
	case !pits[ai].val.IsArray():
		return invalid(`"permissions.allow" is not an array`)
	}
	d.add(pits[ai].val, items(pits[ai].val), "", rule)
	return nil
}

// rulesWhere finds the permission rules in permissions.allow that owns accepts, each as the path
// that leads to it.
func (d *doc) rulesWhere(owns func(string) bool) ([][]step, error) {
	r := d.root()
	rits := items(r)
	pi, n := lookup(rits, "permissions")
	if n > 1 {
		return nil, invalid(`the key "permissions" appears %d times; Claude Code reads only the last: merge them by hand`, n)
	}
	if pi < 0 || !rits[pi].val.IsObject() {
		return nil, nil
	}
	perms := rits[pi].val
	pits := items(perms)
	ai, n := lookup(pits, "allow")
	if n > 1 {
		return nil, invalid(`"permissions" has the key "allow" %d times: merge them by hand`, n)
	}
	if ai < 0 || !pits[ai].val.IsArray() {
		return nil, nil
	}
	allow := pits[ai].val
	aits := items(allow)
	var out [][]step
	for i, a := range aits {
		if a.val.Type == gjson.String && owns(a.val.Str) {
			out = append(out, []step{{r, rits, pi}, {perms, pits, ai}, {allow, aits, i}})
		}
	}
	return out, nil
}

// rule applies p.RuleMode: cairn keeps at most one rule, the first, updated to p.Rule.
func (d *doc) rule(p Plan, o Owner) error {
	for n := 0; ; n++ {
		rs, err := d.rules(o)
		if err != nil {
			return err
		}
		keep := 1
		if p.RuleMode == RemoveRule {
			keep = 0
		}
		if len(rs) <= keep {
			break
		}
		if n == maxEdits {
			return errTooMany
		}
		d.removeChain(rs[keep])
	}
	if p.RuleMode == RemoveRule || p.Rule == "" {
		return nil
	}
	rs, err := d.rules(o)
	if err != nil {
		return err
	}
	if len(rs) == 1 {
		at := rs[0][2]
		if it := at.its[at.i]; it.val.Str != p.Rule {
			d.replace(it, p.Rule)
		}
		return nil
	}
	if p.RuleMode != AddRule {
		return nil
	}
	return d.addAllow(p.Rule)
}
