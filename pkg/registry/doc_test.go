package registry

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// randomDocument makes a registry with awkward strings and every optional field both set and not.
func randomDocument(r *rand.Rand, n int) document {
	strs := []string{"", "main", "feature/<x>&y", "é\u2028\"q\"\\", "\x01\xff", "a-uuid-4c1e"}
	pick := func() string { return strs[r.IntN(len(strs))] }
	at := func() time.Time {
		if r.IntN(4) == 0 {
			return time.Time{}
		}
		return time.Unix(1.7e9+r.Int64N(1e8), 0).UTC()
	}
	var d document
	for range n {
		d.Sessions = append(d.Sessions, Session{
			ID: pick() + fmt.Sprint(r.IntN(100)), Started: at(), LastActivity: at(), Branch: pick(),
			Status: pick(), Ended: at(), EndedBy: pick(), Cursor: r.Int64N(1 << 40),
		})
	}
	return d
}

// session.json is laid out exactly as json.MarshalIndent lays it out, and reads back as
// json.Unmarshal reads it.
func TestDocumentMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		d := randomDocument(r, 1+i%9)
		want, _ := json.MarshalIndent(d, "", "  ")
		got := encodeDocument(d)
		if string(got) != string(want)+"\n" {
			t.Fatalf("encode:\n%s\nwant\n%s", got, want)
		}
		var viaJSON document
		if err := json.Unmarshal(got, &viaJSON); err != nil {
			t.Fatal(err)
		}
		back, err := decodeDocument(got)
		if err != nil || !reflect.DeepEqual(back, viaJSON) {
			t.Fatalf("decode: %v\n%+v\nwant\n%+v", err, back, viaJSON)
		}
	}
	if got := string(encodeDocument(document{})); got != "{\n  \"sessions\": []\n}\n" {
		t.Errorf("empty: %q", got)
	}
}

func TestDecodeDocumentTolerance(t *testing.T) {
	for _, bad := range []string{"", "{", "[]", `"x"`, "null", "{}x"} {
		if _, err := decodeDocument([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	d, err := decodeDocument([]byte(`{"sessions":[1,"x",{"id":"a","cursor":"7","started":"yesterday","status":3},{"id":"b","cursor":12}],"other":true}`))
	if err != nil || len(d.Sessions) != 2 || d.Sessions[0].ID != "a" || d.Sessions[0].Cursor != 0 || !d.Sessions[0].Started.IsZero() ||
		d.Sessions[0].Status != "" || d.Sessions[1].Cursor != 12 {
		t.Fatalf("%+v %v", d, err)
	}
	if d, err := decodeDocument([]byte(`{"sessions":null}`)); err != nil || len(d.Sessions) != 0 {
		t.Fatalf("%+v %v", d, err)
	}
}

// FuzzDecodeDocument: any input decodes or is refused without a panic, and what decodes
// survives a write and a read.
func FuzzDecodeDocument(f *testing.F) {
	f.Add(string(encodeDocument(randomDocument(rand.New(rand.NewPCG(3, 4)), 3))))
	f.Add(`{"sessions":[{"id":"a","cursor":1e30,"ended":"2026-01-01T00:00:00.5+02:00"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		d, err := decodeDocument([]byte(in))
		if err != nil {
			return
		}
		for i := range d.Sessions {
			// What json and jsonw write for a time is RFC 3339 in the time's own zone; compare instants.
			for _, tp := range []*time.Time{&d.Sessions[i].Started, &d.Sessions[i].LastActivity, &d.Sessions[i].Ended} {
				if tp.Year() < 0 || tp.Year() > 9999 {
					return // json.Marshal refuses these years too
				}
			}
		}
		back, err := decodeDocument(encodeDocument(d))
		if err != nil || len(back.Sessions) != len(d.Sessions) {
			t.Fatalf("%v: %d sessions, want %d", err, len(back.Sessions), len(d.Sessions))
		}
		for i, s := range back.Sessions {
			w := d.Sessions[i]
			if s.ID != string([]rune(w.ID)) || s.Cursor != w.Cursor || !s.Started.Equal(w.Started) || !s.Ended.Equal(w.Ended) || !s.LastActivity.Equal(w.LastActivity) {
				t.Fatalf("%+v\n→\n%+v", w, s)
			}
		}
	})
}

// An event line is what encoding/json wrote for the same record.
func TestEventLineMatchesEncodingJSON(t *testing.T) {
	for _, e := range []Event{
		{Time: time.Date(2026, 11, 30, 2, 6, 25, 9, time.FixedZone("x", 3600)), From: "a", Type: TypeBroadcast, Msg: "ship <it> & \"go\"\n\xff"},
		{Time: time.Time{}, From: "", Type: TypeStart},
	} {
		want, _ := json.Marshal(struct {
			TS   string `json:"ts"`
			From string `json:"from"`
			Type string `json:"type"`
			Msg  string `json:"msg,omitempty"`
		}{e.Time.UTC().Format(time.RFC3339), e.From, e.Type, e.Msg})
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Errorf("%s\nwant\n%s", got, want)
		}
	}
}
