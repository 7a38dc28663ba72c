package transports

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func TestAdmitURLAllowsCleartextOnlyToLoopbackAndRefusesPrivateHTTPS(t *testing.T) {
	tests := []struct {
		url          string
		ok           bool   // admitted without allow_private_network
		okPrivate    bool   // admitted with allow_private_network
		wantInReason string // part of the refusal message, when refused
	}{
		// cleartext: exactly localhost, 127.0.0.1 or [::1]
		{"http://localhost:8080/hook", true, true, ""},
		{"http://127.0.0.1/hook", true, true, ""},
		{"http://[::1]:9000/", true, true, ""},
		{"HTTP://LOCALHOST:8080/hook", true, true, ""},
		{"http://localhost./", false, false, "cleartext http://"},
		{"http://127.0.0.1.nip.io/", false, false, "cleartext http://"},
		{"http://127.0.0.2/", false, false, "cleartext http://"},
		{"http://[::ffff:127.0.0.1]/", false, false, "cleartext http://"},
		{"http://[::1%25lo]/", false, false, "cleartext http://"},
		{"http://10.0.0.1/", false, false, "cleartext http://"},
		{"http://policy.example.com/", false, false, "use https://"},
		// https to public hosts
		{"https://policy.example.com/hook", true, true, ""},
		{"HTTPS://Policy.Example.COM/hook", true, true, ""},
		{"https://8.8.8.8/", true, true, ""},
		{"https://172.32.0.1/", true, true, ""},
		{"https://[2606:4700:4700::1111]/", true, true, ""},
		{"https://[::ffff:8.8.8.8]/", true, true, ""},
		{"https://[64:ff9b::808:808]/", true, true, ""},
		{"https://[2002:808:808::1]/", true, true, ""},
		{"https://1.2.3.4.nip.io/", true, true, ""}, // a name: its DNS answers are checked at dial time
		// https to the local machine and private networks
		{"https://localhost/", false, true, "local machine"},
		{"https://LOCALHOST./", false, true, "local machine"},
		{"https://api.localhost/", false, true, "local machine"},
		{"https://127.0.0.1/", false, true, "loopback"},
		{"https://127.8.9.10/", false, true, "loopback"},
		{"https://[::1]/", false, true, "loopback"},
		{"https://10.1.2.3/", false, true, "private"},
		{"https://172.16.0.1/", false, true, "private"},
		{"https://192.168.1.1/", false, true, "private"},
		{"https://100.64.0.1/", false, true, "carrier-grade NAT"},
		{"https://[fd12:3456::1]/", false, true, "unique local"},
		{"https://[::ffff:10.0.0.1]/", false, true, "private"},
		{"https://[::127.0.0.1]/", false, true, "embeds"},
		{"https://[64:ff9b::a00:1]/", false, true, "embeds"},
		{"https://[2002:c0a8:101::1]/", false, true, "embeds"},
		{"https://[2001:0:808:808::80ff:fffe]/", false, true, "embeds"}, // Teredo client 127.0.0.1
		{"https://[2001:0:a00:1::f7f7:f7f7]/", false, true, "embeds"},   // Teredo server 10.0.0.1, client 8.8.8.8
		{"https://[2001:4860::5efe:a00:1]/", false, true, "embeds"},     // ISATAP 10.0.0.1
		// never admitted
		{"https://169.254.169.254/latest/meta-data/", false, false, "metadata"},
		{"https://[fd00:ec2::254]/", false, false, "metadata"},
		{"https://[::ffff:169.254.169.254]/", false, false, "metadata"},
		{"https://169.254.1.1/", false, false, "link-local"},
		{"https://[fe80::1]/", false, false, "link-local"},
		{"https://[fe80::1%25eth0]/", false, false, "link-local"},
		{"https://0.0.0.0/", false, false, "unspecified"},
		{"https://[::]/", false, false, "unspecified"},
		{"https://224.0.0.1/", false, false, "multicast"},
		{"https://[ff02::1]/", false, false, "multicast"},
		{"https://255.255.255.255/", false, false, "reserved"},
		{"https://[2001:0:a9fe:a9fe::1]/", false, false, "embeds"}, // Teredo server 169.254.169.254
		{"https://2130706433/", false, false, "canonical form"},
		{"https://0x7f000001/", false, false, "canonical form"},
		{"https://127.1/", false, false, "canonical form"},
		{"https://0177.0.0.1/", false, false, "canonical form"},
		{"https://user:pass@policy.example.com/", false, false, "user info"},
		{"https://token@policy.example.com/", false, false, "user info"},
		{"http://user:pw@localhost/", false, false, "user info"},
		{"ftp://policy.example.com/", false, false, "scheme"},
		{"file:///etc/passwd", false, false, "scheme"},
		{"ws://localhost/", false, false, "scheme"},
		{"javascript:alert(1)", false, false, "scheme"},
		{"https:policy.example.com", false, false, "no host"},
		{"https:///hook", false, false, "no host"},
		{"https://policy.example.com:99999/", false, false, "port"},
		{"policy.example.com/hook", false, false, "scheme"},
		{"https://exa mple.com/", false, false, "does not parse"},
	}
	for _, tt := range tests {
		for _, private := range []bool{false, true} {
			want := tt.ok
			if private {
				want = tt.okPrivate
			}
			err := AdmitURL(tt.url, private)
			if (err == nil) != want {
				t.Errorf("AdmitURL(%q, private=%v) = %v, want admitted=%v", tt.url, private, err, want)
				continue
			}
			if err == nil {
				continue
			}
			var f *luahook.Failure
			if !errors.As(err, &f) || f.Kind != luahook.FailRejected {
				t.Errorf("AdmitURL(%q) = %v, want a rejected failure", tt.url, err)
				continue
			}
			if !strings.Contains(f.Message, tt.wantInReason) {
				t.Errorf("AdmitURL(%q, private=%v) message %q, want it to mention %q", tt.url, private, f.Message, tt.wantInReason)
			}
			if strings.Contains(f.Message, "pass@") {
				t.Errorf("AdmitURL(%q) message %q repeats the password", tt.url, f.Message)
			}
		}
	}
}

func TestRefusedAddrClassifiesDNSAnswers(t *testing.T) {
	tests := []struct {
		addr    string
		refused bool
		private bool // refused only without allow_private_network
	}{
		{"93.184.216.34", false, false},
		{"2606:2800:220:1:248:1893:25c8:1946", false, false},
		{"10.0.0.1", true, true},
		{"127.0.0.53", true, true},
		{"::ffff:192.168.0.1", true, true},
		{"198.18.0.1", true, true},
		{"169.254.169.254", true, false},
		{"169.254.170.2", true, false},
		{"100.100.100.200", true, false},
		{"fe80::abcd", true, false},
		{"240.0.0.1", true, false},
		{"192.0.2.1", true, false},
		{"2001:db8::1", true, false},
		{"::2", true, false}, // IPv4-compatible 0.0.0.2
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := refusedAddr(a, false) != ""; got != tt.refused {
			t.Errorf("refusedAddr(%s, false) refused = %v, want %v", a, got, tt.refused)
		}
		wantPrivate := tt.refused && !tt.private
		if got := refusedAddr(a, true) != ""; got != wantPrivate {
			t.Errorf("refusedAddr(%s, true) refused = %v, want %v", a, got, wantPrivate)
		}
	}
}
