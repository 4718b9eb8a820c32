package redact

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Provider keys.
		{"key sk-ant-api03-AbCdEf0123456789_-AbCdEf0123456789 here", "key [REDACTED] here"},
		{"OPENAI=sk-proj-abcdefghijklmnop0123456789", "OPENAI=[REDACTED]"},
		{"sk-abcdefghijklmnopqrstuvwx", "[REDACTED]"},
		{"use ghp_0123456789abcdefghijABCDEFGHIJ0123 to push", "use [REDACTED] to push"},
		{"gho_0123456789abcdefghij0123 ghs_0123456789abcdefghij0123 ghu_0123456789abcdefghij0123", "[REDACTED] [REDACTED] [REDACTED]"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED]"},
		{"glpat-xxxxxxxxxxxxxxxxxxxx0", "[REDACTED]"},
		{"slack xoxb-1234567890-abcdefghij and xoxp-1234-5678-abcdef", "slack [REDACTED] and [REDACTED]"},
		{"id AKIAIOSFODNN7EXAMPLE ok", "id [REDACTED] ok"},
		{"ASIAY34FZKBOKMUTVV7A", "[REDACTED]"},
		{"aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key=[REDACTED]"},
		{"AWS_SECRET_ACCESS_KEY = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY = [REDACTED]"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end", "jwt [REDACTED] end"},
		// Keys the second wave added: short sk- keys, Stripe, Google, npm, Hugging Face.
		{"key sk-abc123def456 ok", "key [REDACTED] ok"},
		{"STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "STRIPE=[REDACTED]"},
		{"rk_test_51Habcdefghij0123", "[REDACTED]"},
		{"maps AIzaSyA1234567890abcdefghijklmnopqrstu0 key", "maps [REDACTED] key"},
		{"//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "//registry.npmjs.org/:_authToken=[REDACTED]"},
		{"HF hf_abcdefghijklmnopqrstuvwxyzABCDEF done", "HF [REDACTED] done"},
		// Passwords in URLs keep the user and the host.
		{"postgres://app:s3cret@db.example.com:5432/app", "postgres://app:[REDACTED]@db.example.com:5432/app"},
		{"git clone https://me:ghx_tokenvalue@github.com/o/r.git", "git clone https://me:[REDACTED]@github.com/o/r.git"},
		{"MYSQL_PWD=hunter2 mysql -u root", "MYSQL_PWD=[REDACTED] mysql -u root"},
		// Bearer keeps the scheme.
		{"Authorization: Bearer abcdef0123456789ABCDEF.xyz", "Authorization: Bearer [REDACTED]"},
		{"curl -H 'authorization: bearer abcdefghijklmnop1234'", "curl -H 'authorization: bearer [REDACTED]'"},
		// Pairs keep the key and the quotes.
		{"password=hunter2", "password=[REDACTED]"},
		{"DB_PASSWORD=s3cr3t! and more", "DB_PASSWORD=[REDACTED] and more"},
		{"passwd: Tr0ub4dor", "passwd: [REDACTED]"},
		{`{"api_key": "abc123def456", "name": "x"}`, `{"api_key": "[REDACTED]", "name": "x"}`},
		{"client_secret='shh-its-1'", "client_secret='[REDACTED]'"},
		{"token := abc.def.ghi", "token := [REDACTED]"},
		{"export GITHUB_TOKEN=abc123; echo", "export GITHUB_TOKEN=[REDACTED]; echo"},
		{"secret_key=abc, next", "secret_key=[REDACTED], next"},
		{"apiKey: AbC123", "apiKey: [REDACTED]"},
		// Private keys, whole or cut short.
		{"before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter", "before\n[REDACTED]\nafter"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA", "[REDACTED]"},
		{"-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY----- and -----BEGIN EC PRIVATE KEY-----\ny\n-----END EC PRIVATE KEY-----", "[REDACTED] and [REDACTED]"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// The forms redaction used to miss, each in more than one spelling.
func TestRedactIssue21Forms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// URL credentials with an empty user, and a password holding an @.
		{"redis://:s3cr3tpw@cache:6379/0", "redis://:[REDACTED]@cache:6379/0"},
		{"REDIS_URL=rediss://:p4ss@host", "REDIS_URL=rediss://:[REDACTED]@host"},
		{"amqp://guest:p@ss@rabbit/vh", "amqp://guest:[REDACTED]@rabbit/vh"},
		{"mongodb+srv://app:pw9@cluster0.x.mongodb.net/db", "mongodb+srv://app:[REDACTED]@cluster0.x.mongodb.net/db"},
		// curl: -u, --user, attached, quoted, with other flags; the user is kept.
		{"curl -u admin:hunter2 https://api.example.com", "curl -u admin:[REDACTED] https://api.example.com"},
		{"curl -s --user admin:hunter2 https://x", "curl -s --user admin:[REDACTED] https://x"},
		{"curl -uadmin:hunter2 https://x", "curl -uadmin:[REDACTED] https://x"},
		{"curl -su 'admin:p w' https://x", "curl -su 'admin:[REDACTED]' https://x"},
		{`CURL --user="admin:hunter2" x`, `CURL --user="admin:[REDACTED]" x`},
		{"curl -U proxy:pw1 --proxy-user p2:pw2 x", "curl -U proxy:[REDACTED] --proxy-user p2:[REDACTED] x"},
		// netrc, on one line and on several.
		{"machine api.example.com login me password hunter2", "machine api.example.com login me password [REDACTED]"},
		{"machine h\n  login u\n  password Xy9z\nmachine g login v password w", "machine h\n  login u\n  password [REDACTED]\nmachine g login v password [REDACTED]"},
		{"default login anon password guest@", "default login anon password [REDACTED]"},
		{"machine h password pw login u", "machine h password [REDACTED] login u"},
		// mysql -pX (attached) and --password=X; the user and the database stay.
		{"mysql -u root -phunter2 app", "mysql -u root -p[REDACTED] app"},
		{"mysqldump -uroot -p'hun ter2' db > x.sql", "mysqldump -uroot -p'[REDACTED]' db > x.sql"},
		{"mysql --user=root --password=hunter2 app", "mysql --user=root --password=[REDACTED] app"},
		{"mariadb -h db -pS3cret", "mariadb -h db -p[REDACTED]"},
		// Slack: every xox form and app-level tokens.
		{"xapp-1-A0123456789-1234567890123-abcdef0123456789", "[REDACTED]"},
		{"xoxs-1234567890-abcdef xoxc-1234567890-abcdef xoxe-1-abcdef012345", "[REDACTED] [REDACTED] [REDACTED]"},
		{"xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAxMjM0", "[REDACTED]"},
		{"hook https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX ok", "hook https://hooks.slack.com/services/[REDACTED] ok"},
		// Stripe webhook secrets.
		{"STRIPE_WEBHOOK=whsec_1234567890abcdefABCDEF1234567890ab", "STRIPE_WEBHOOK=[REDACTED]"},
		// Azure connection strings.
		{"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4+/Zm9vYmFy==;EndpointSuffix=core.windows.net",
			"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"},
		{"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=abc123+/=", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=[REDACTED]"},
		{"https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig=abc%2Bdef%3D&se=x", "https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig=[REDACTED]&se=x"},
		// SendGrid.
		{"SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ", "[REDACTED]"},
		// Twilio: an API key, and an auth token after its account SID.
		{"key SK0123456789abcdef0123456789abcdef", "key [REDACTED]"},
		{"AC0123456789abcdef0123456789abcdef:0123456789abcdef0123456789abcdef", "AC0123456789abcdef0123456789abcdef:[REDACTED]"},
		// age.
		{"AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS3290GG", "[REDACTED]"},
		// Grafana, DigitalOcean.
		{"glsa_abcdefghijklmnopqrstuvwxyz012345_0123abcd", "[REDACTED]"},
		{"glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrIiwiayI6ImFiYyJ9", "[REDACTED]"},
		{"DO dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "DO [REDACTED]"},
		{"doo_v1_0123456789abcdef0123456789abcdef", "[REDACTED]"},
		// A bare AWS secret access key, and one on a CSV line after its key id.
		{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "[REDACTED]"},
		{"AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", "[REDACTED],[REDACTED]\n"},
		// npm tokens longer than 36 characters.
		{"npm_abcdefghijklmnopqrstuvwxyz0123456789ABCD", "[REDACTED]"},
		// PGP private key blocks.
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----", "[REDACTED]"},
		// Basic authorization.
		{"Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// The fallback: a key-shaped token next to a word that names a secret, in every form a pair is
// written in, is masked.
func TestRedactKeyShapedNextToSecretWord(t *testing.T) {
	const k = "Zx9Qw7Er5Ty3Ui1Op8As6Df4" // no rule knows it
	for _, tc := range []struct{ in, want string }{
		{"key=" + k, "key=[REDACTED]"},
		{"key: " + k, "key: [REDACTED]"},
		{`{"key": "` + k + `"}`, `{"key": "[REDACTED]"}`},
		{"the key " + k + " works", "the key [REDACTED] works"},
		{"X-Api-Key: " + k, "X-Api-Key: [REDACTED]"},
		{"auth " + k, "auth [REDACTED]"},
		{"OAUTH=" + k, "OAUTH=[REDACTED]"},
		{"pwd: " + k, "pwd: [REDACTED]"},
		{"password " + k, "password [REDACTED]"},
		{"passwd " + k, "passwd [REDACTED]"},
		{"secret " + k, "secret [REDACTED]"},
		{"token " + k, "token [REDACTED]"},
		{"api_key " + k, "api_key [REDACTED]"},
		{"sshKey := `" + k + "`", "sshKey := `[REDACTED]`"},
		{"--token " + k, "--token [REDACTED]"},
		{"Credentials: " + k + "==", "Credentials: [REDACTED]"},
		{"deployKeys => '" + k + "'", "deployKeys => '[REDACTED]'"},
		{"DB_PASS " + k, "DB_PASS [REDACTED]"},
		{"key\t" + k, "key\t[REDACTED]"},
		{"token ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "token [REDACTED]"}, // base32
		{"key 9f8e7d6c5b4a3z2y1x0wvutsrqponm", "key [REDACTED]"},       // lowercase and digits, not hex
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// What the fallback must not take for a key: prose, paths, git object names, digests, UUIDs,
// identifiers, versions, numbers, even next to a secret word; and a bare 40-character token
// that is hex (a git SHA) or made of words.
func TestRedactFallbackLeavesNonKeys(t *testing.T) {
	for _, in := range []string{
		"the key point is that the token budget is small",
		"key: value, token: expired, secret: none",
		"the key insight is the tokenizer design",
		"key a0a4684f1c2e3b5d6a7c8e9f0a1b2c3d4e5f6a7b",
		"commit a0a4684f1c2e3b5d6a7c8e9f0a1b2c3d4e5f6a7b",
		"a0a4684f1c2e3b5d6a7c8e9f0a1b2c3d4e5f6a7b",
		"A0A4684F1C2E3B5D6A7C8E9F0A1B2C3D4E5F6A7B",
		"token 550e8400-e29b-41d4-a716-446655440000",
		"key: sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"key src/pkg/redact/redact_test2.go",
		"auth internal/testbin/Build2/whatever/Foo",
		"token /usr/lib/x86_64-linux-gnu/libssl3",
		"key x86_64-unknown-linux-gnu2",
		"key: MaxTokensPerRequest2026",
		"key TestFuzzRedactPairsWindows2026",
		"secret parseHTTP2FrameHeaderValue",
		"key sessionstart-readorder2-final",
		"key k8sClusterName01Production",
		"token 12345678901234567890123456",
		"key 2024-01-15T10:30:00Z-build-20240115",
		"auth v1.2.3-rc4+build.20240115",
		"TestRedactLeavesOrdinaryTextWithManyWord",
		"TestRedactLeavesOrdinaryText2WithManyWor",
		"internal/checkpoint/saved/savedTest2Case",
		"the monkey ran off",
		"see Zx9Qw7Er5Ty3Ui1Op8As6Df4 here", // key-shaped, but no secret word before it
		"key,Zx9Qw7Er5Ty3Ui1Op8As6Df4",
		"key.Zx9Qw7Er5Ty3Ui1Op8As6Df4",
	} {
		if got := Redact(in); got != in {
			t.Errorf("Redact(%q) = %q, want it unchanged", in, got)
		}
	}
}

// Ordinary text, including the words the rules look for, comes back unchanged.
func TestRedactLeavesOrdinaryText(t *testing.T) {
	for _, in := range []string{
		"",
		"Let's come back to the caching idea later.",
		"the password is stored in the vault",
		"reset the password: users forget it",
		"the token: expired yesterday",
		"we use sk-learn and scikit-learn",
		"the sk-learn-plugins fork is fine",
		"see https://example.com/path and http://host:8080/x",
		"PWD=/home/me/src",
		"ask-anything-here-please-with-many-words",
		"task-0123456789abcdefghijklmnop",
		"tokens=3 tokenizer=bert max_tokens: 4096",
		"the secretary has the keys",
		"export PASSWORD=$DB_PASSWORD",
		"password=",
		"ghp_short",
		"AKIA is a prefix",
		"a public key -----BEGIN PUBLIC KEY----- is fine",
		"Bearer short",
		"bearer of bad news is here today",
		"api_key=[REDACTED]",
		"ünïcödé — «text» with ? and emoji 🎉",
		// Near misses of those forms.
		"see http://host:8080/x and https://example.com:443/a@b",
		"curl -u admin https://x (asks for the password)",
		"git push -u origin HEAD:main",
		"sort -u a:b",
		"mysql -u root -p app (asks)",
		"mysql -P3306 -h db",
		"the default password is changed at first login",
		"reset the login password for the user",
		"the Slack xapp- prefix and xoxb-short",
		"whsec_short",
		"SG.short.token",
		"SKIP this SK123 and ACME",
		"AGE-SECRET-KEY-1 is the prefix",
		"glsa_short dop_v1_short",
		"npm_short and npm_abc",
		"AccountKey=",
		"a signature sig= here",
	} {
		if got := Redact(in); got != in {
			t.Errorf("Redact(%q) = %q, want it unchanged", in, got)
		}
	}
}

func TestRedactIdempotent(t *testing.T) {
	in := "password=hunter2 sk-ant-api03-AbCdEf0123456789_-AbCdEf0123456789 Bearer abcdefghijklmnop1234"
	once := Redact(in)
	if twice := Redact(once); twice != once {
		t.Fatalf("not idempotent: %q then %q", once, twice)
	}
}

func BenchmarkRedactClean(b *testing.B) {
	s := strings.Repeat("Please refactor the parser and add tests for the edge cases. ", 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s)
	}
}

func BenchmarkRedactSecrets(b *testing.B) {
	s := strings.Repeat("Use token=abc123 and ghp_0123456789abcdefghijABCDEFGHIJ0123 please. ", 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s)
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("password=hunter2 sk-ant-api03-AbCdEf0123456789_-AbCdEf0123456789")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nabc")
	f.Add("redis://:pw@h curl -u a:b machine h login u password p mysql -pX whsec_0123456789abcdefXYZ")
	f.Add("key: Zx9Qw7Er5Ty3Ui1Op8As6Df4== AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	f.Fuzz(func(t *testing.T, s string) {
		once := Redact(s)
		if Redact(once) != once {
			t.Fatalf("not idempotent on %q: %q", s, once)
		}
	})
}

// Every expression compiles (they are compiled lazily, so a typo would only show on first use).
func TestRulesCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{curlLineRe, curlUserRe, mysqlLineRe, mysqlPassRe} {
		re()
	}
	for _, r := range rules {
		if r.re == nil && r.apply == nil || r.re != nil && r.re() == nil {
			t.Fatal("a rule with nothing to run")
		}
	}
	needleIndex()
}

// redactPairs runs the pair expression over the needles' lines only; on ASCII text that gives
// exactly what the expression gives over the whole text. (RE2's (?i) also folds the Kelvin sign
// and the long s; the needles, looked for in ASCII, never did, so such keys were masked only when
// an ASCII needle happened to be elsewhere in the text: now they never are.)
func FuzzRedactPairsWindows(f *testing.F) {
	f.Add("password=hunter2\nx token :\n\n  abc123 and api_key='q r' DB_PWD=zz")
	f.Add("a secret\n: b\nsecret_key = \"x\"  MYSQL_PWD=1 tokens=3")
	f.Add(strings.Repeat("the lexer's state ", 300) + "token: Abc1 " + strings.Repeat("x ", 300))
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return
			}
		}
		want := maskPairs(s)
		if got := redactPairs(s); got != want {
			t.Fatalf("windows differ on %q:\n got %q\nwant %q", s, got, want)
		}
	})
}

// FuzzRedactPairsAsBefore: redactPairs masks what the version before its separator test masked
// (redactPairsBefore, below), on any text, non-ASCII included: skipping a needle without a ':' or
// '=' after it changes the cost, not the result.
func FuzzRedactPairsAsBefore(f *testing.F) {
	f.Add("the password is below; pa\u017f\u017fword=hunter2")
	f.Add("a token here, to\u212aen: Abc123def and password=x")
	f.Add("password=hunter2\nx token :\n\n  abc123 and api_key='q r' DB_PWD=zz")
	f.Add("Struct token 日本語 mutex, naïve window; DB_PASSWORD=hunter2 and api_key: Abc123")
	f.Add("日本語 token \n  to\u212aen=Abc123def and secret 日本")
	f.Add("naïve secret here\npa\u017f\u017fword: Abc123\n日本語 token")
	f.Add("token0\nto\u212aen=0") // an ASCII needle line, the value's line below it spelled with a K
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := redactPairs(s), redactPairsBefore(s); got != want {
			t.Fatalf("differs on %q:\n got %q\nwant %q", s, got, want)
		}
	})
}

// redactPairsBefore is redactPairs as it was before the separator test (8b2b9fb), kept as the
// reference FuzzRedactPairsAsBefore compares with.
func redactPairsBefore(s string) string {
	type hit struct{ i, n int } // a needle's offset and length
	var buf [16]hit
	hits := buf[:0]
	needleIndex().each(s, pairRule, func(i int, n string) { hits = append(hits, hit{i, len(n)}) })
	if len(hits) == 0 {
		return s
	}
	// The pass finds needles by their anchor, so two near each other can come out of order.
	slices.SortFunc(hits, func(x, y hit) int { return x.i - y.i })
	var b strings.Builder
	b.Grow(len(s))
	done := 0             // s[:done] is written
	wa, wb := 0, -1       // the stretch being gathered, from a line start to a line end; none while wb < 0
	line, scanned := 0, 0 // the start of the line of s[scanned]
	for _, h := range hits {
		if k := strings.LastIndexByte(s[scanned:h.i], '\n'); k >= 0 {
			line = scanned + k + 1
		}
		scanned = h.i
		v := pairValueBefore(s, h.i+h.n)
		if wb >= 0 && line <= wb {
			if v > wb {
				wb = lineEnd(s, v)
			}
			continue
		}
		if wb >= 0 {
			b.WriteString(s[done:wa])
			b.WriteString(maskPairs(s[wa:wb]))
			done = wb
		}
		wa, wb = line, lineEnd(s, v)
	}
	b.WriteString(s[done:wa])
	b.WriteString(maskPairs(s[wa:wb]))
	b.WriteString(s[wb:])
	return b.String()
}
func pairValueBefore(s string, i int) int {
	for i < len(s) && isKeyByte(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	for i < len(s) && (s[i] == ':' || s[i] == '=') {
		i++
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// TestFoldsToASCII: the Kelvin sign and the long s are the only runes beyond ASCII that Unicode's
// simple case folding, which RE2's (?i) uses, takes to an ASCII letter; redactPairs skips a needle
// without a separator on a line with other text than ASCII only when neither is there
// (foldsToASCII).
func TestFoldsToASCII(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf && r != '\u212a' && r != '\u017f' {
				t.Errorf("%U folds to %q: foldsToASCII must look for it", r, f)
			}
		}
	}
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"日本語 token here", false},
		{"naïve to\u212aen: Abc, a token here", true},
		{"a token\n\n pa\u017f\u017fword", true}, // the stretch runs to the line where a value would start
		{"a token\nnext line\npa\u017f\u017fword", false},
	} {
		i := strings.Index(c.s, "token")
		v, _ := pairSep(c.s, i+len("token"))
		if got := foldsToASCII(c.s, i, v); got != c.want {
			t.Errorf("foldsToASCII(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// BenchmarkRedactPrompt is a prompt that names a token, in prose with other text than ASCII: the
// needle pass alone, not the pair expression (SessionEnd's hand-off quotes such prompts).
func BenchmarkRedactPrompt(b *testing.B) {
	s := "Struct token 日本語 mutex file mutex line a reader config in as. File goroutine error naïve window write parse error with window newline this backslash buffer be to."
	for b.Loop() {
		Redact(s)
	}
}

func BenchmarkRedactSummary(b *testing.B) {
	s := strings.Repeat("1. Primary request: refactor the lexer's state into a struct, keep the tests green.\n", 60) +
		"The token refresh runs every hour.\n" + strings.Repeat("2. Files: src/parser/parser.go was changed.\n", 60)
	for b.Loop() {
		Redact(s)
	}
}

// The one-pass needle search finds exactly the rules a search for each needle finds.
func FuzzNeedles(f *testing.F) {
	f.Add("ghp_ xox SK AC sk- PASSWORD curl MySQL")
	f.Add("aKiA AKIA Sg. SG. hooks.slack.com/ _V1_")
	f.Fuzz(func(t *testing.T, s string) {
		var want uint64
		for i, r := range rules {
			for _, n := range r.needles {
				if strings.ToLower(n) != n && strings.Contains(s, n) || strings.ToLower(n) == n && strings.Contains(asciiLower(s), n) {
					want |= 1 << i
				}
			}
		}
		if got := needleIndex().find(s); got != want {
			t.Fatalf("find(%q) = %b, want %b", s, got, want)
		}
	})
}

// asciiLower lowercases ASCII letters only, keeping every byte offset of s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Text full of what the fallback looks at and must leave: long identifiers, paths, object names.
func BenchmarkRedactCode(b *testing.B) {
	s := strings.Repeat("func TestRedactLeavesOrdinaryText(t *testing.T) { key := src/pkg/redact/redact_test.go; commit a0a4684f1c2e3b5d6a7c8e9f0a1b2c3d4e5f6a7b }\n", 10)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s)
	}
}

// A pair whose key starts with a Kelvin sign or a long s after a word character ("_\u212a_pwd")
// matches where RE2's \b, which knows ASCII words only, sees a boundary before the sign, but not
// when the match is read again on its own, as maskPairs did: it found nothing there and
// panicked. The value is masked from the match's own groups.
func TestRedactPairKeyStartingWithAFoldedSign(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_\u212a_pwd:=hunter2", "_\u212a_pwd:=[REDACTED]"},
		{"x_\u017f_pwd=hunter2 and more", "x_\u017f_pwd=[REDACTED] and more"},
	} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("Redact(%q) panicked: %v", c.in, p)
				}
			}()
			if got := Redact(c.in); got != c.want {
				t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
		}()
	}
}
