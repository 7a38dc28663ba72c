package transports

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/luahook/luahook"
)

// AdmitURL checks an HTTP hook's URL before any request is made, and returns
// a *luahook.Failure of kind FailRejected saying why it is refused.
//
// Cleartext http:// is allowed only when the host is exactly localhost,
// 127.0.0.1 or [::1]. Any other host needs https://, and is refused when it
// names the local machine (localhost, *.localhost) or is an IP literal in a
// refused range: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7),
// shared CGNAT space (100.64/10), link-local (169.254/16, fe80::/10), cloud
// metadata addresses, unspecified, multicast, reserved and documentation
// ranges, and IPv6 forms that embed a refused IPv4 address (mapped,
// compatible, NAT64, 6to4, Teredo, ISATAP). A host that looks numeric but is
// not a canonical IP literal (2130706433, 0x7f.1, 127.1) is refused too.
// With allowPrivate, loopback, private, CGNAT and local names are admitted
// (for an internal policy service); link-local, metadata, unspecified,
// multicast and reserved addresses never are, and http:// stays loopback-only.
// User info in the URL is refused: credentials belong in headers. Other
// schemes are refused.
//
// A hostname passes this static check; its DNS answers are checked when the
// connection is dialled (see HTTPSpec.Resolver).
func AdmitURL(raw string, allowPrivate bool) error {
	_, err := admitURL(raw, allowPrivate)
	return err
}

func admitURL(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		cause := err
		if ue, ok := err.(*url.Error); ok {
			cause = ue.Err
		}
		return nil, &luahook.Failure{Kind: luahook.FailRejected, Message: "HTTP hook URL does not parse: " + cause.Error(), Err: err}
	}
	refuse := func(format string, args ...any) (*url.URL, error) {
		return nil, luahook.Failf(luahook.FailRejected, "HTTP hook URL %q: %s", u.Redacted(), fmt.Sprintf(format, args...))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return refuse("scheme %q is not allowed; use https:// (or http:// to localhost, 127.0.0.1 or [::1])", u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return refuse("no host; want %s://host[:port]/path", u.Scheme)
	}
	if u.User != nil {
		return refuse("user info in the URL is not allowed; send credentials in a header, e.g. Authorization = \"Bearer ${TOKEN}\" with TOKEN in allowed_env")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return refuse("port %q is out of range", p)
		}
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return refuse("no host; want %s://host[:port]/path", u.Scheme)
	}
	if u.Scheme == "http" {
		if !cleartextLoopback(u) {
			return refuse("cleartext http:// is allowed only to localhost, 127.0.0.1 or [::1]; use https://")
		}
		return u, nil
	}
	if why := refusedHost(host, allowPrivate); why != "" {
		return refuse("%s", why)
	}
	return u, nil
}

// cleartextLoopback reports whether an http URL's host is exactly localhost,
// 127.0.0.1 or [::1]: no trailing dot, no other loopback address, no zone.
func cleartextLoopback(u *url.URL) bool {
	h := strings.ToLower(u.Host)
	if p := u.Port(); p != "" {
		h = strings.TrimSuffix(h, ":"+p)
	}
	return h == "localhost" || h == "127.0.0.1" || h == "[::1]"
}

// refusedHost says why an https host is refused, or returns "".
func refusedHost(host string, allowPrivate bool) string {
	if localName(host) {
		if allowPrivate {
			return ""
		}
		return fmt.Sprintf("host %q names the local machine; set allow_private_network = true for a local policy service", host)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return refusedAddr(a, allowPrivate)
	}
	if numericHost(host) {
		return fmt.Sprintf("host %q looks like an IP address but is not one in canonical form", host)
	}
	return ""
}

func localName(host string) bool {
	h := strings.TrimSuffix(host, ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// numericHost reports whether a host that is not an IP literal would still be
// read as an IPv4 address by some resolver: its last label is a number.
func numericHost(host string) bool {
	last := strings.TrimSuffix(host, ".")
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(last, "0x"); ok {
		last = h
		for i := 0; i < len(last); i++ {
			if !strings.ContainsRune("0123456789abcdef", rune(last[i])) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

// addrRange is a refused range of addresses; lifted ranges are admitted
// when the hook allows the private network.
type addrRange struct {
	prefix netip.Prefix
	what   string
	lifted bool
}

// refusedRanges lists the refused ranges in match order: single metadata
// addresses come before the wider ranges that contain them. It is read-only.
var refusedRanges = [...]addrRange{
	{mustPrefix("169.254.169.254/32"), "a cloud metadata address", false},
	{mustPrefix("169.254.170.2/32"), "a cloud metadata address", false},
	{mustPrefix("100.100.100.200/32"), "a cloud metadata address", false},
	{mustPrefix("fd00:ec2::254/128"), "a cloud metadata address", false},
	{mustPrefix("0.0.0.0/8"), "in the unspecified range 0.0.0.0/8", false},
	{mustPrefix("127.0.0.0/8"), "loopback", true},
	{mustPrefix("10.0.0.0/8"), "private (RFC 1918)", true},
	{mustPrefix("172.16.0.0/12"), "private (RFC 1918)", true},
	{mustPrefix("192.168.0.0/16"), "private (RFC 1918)", true},
	{mustPrefix("100.64.0.0/10"), "shared carrier-grade NAT space (RFC 6598)", true},
	{mustPrefix("198.18.0.0/15"), "in the benchmarking range (RFC 2544)", true},
	{mustPrefix("169.254.0.0/16"), "link-local", false},
	{mustPrefix("192.0.0.0/24"), "reserved for protocol assignments (RFC 6890)", false},
	{mustPrefix("192.0.2.0/24"), "reserved for documentation", false},
	{mustPrefix("198.51.100.0/24"), "reserved for documentation", false},
	{mustPrefix("203.0.113.0/24"), "reserved for documentation", false},
	{mustPrefix("224.0.0.0/4"), "multicast", false},
	{mustPrefix("240.0.0.0/4"), "reserved", false},
	{mustPrefix("::/128"), "unspecified", false},
	{mustPrefix("::1/128"), "loopback", true},
	{mustPrefix("fc00::/7"), "private (unique local)", true},
	{mustPrefix("fe80::/10"), "link-local", false},
	{mustPrefix("fec0::/10"), "site-local", true},
	{mustPrefix("ff00::/8"), "multicast", false},
	{mustPrefix("100::/64"), "reserved (discard-only)", false},
	{mustPrefix("2001:db8::/32"), "reserved for documentation", false},
	{mustPrefix("64:ff9b:1::/48"), "local-use NAT64 (RFC 8215)", true},
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// refusedAddr says why an https hook may not connect to a, or returns "".
func refusedAddr(a netip.Addr, allowPrivate bool) string {
	a = a.WithZone("")
	if a.Is4In6() {
		a = a.Unmap()
	}
	for _, r := range &refusedRanges {
		if r.prefix.Contains(a) {
			if r.lifted && allowPrivate {
				break
			}
			msg := fmt.Sprintf("address %s is %s", a, r.what)
			if r.lifted {
				msg += "; set allow_private_network = true for an internal policy service"
			}
			return msg
		}
	}
	if a.Is6() {
		for _, v4 := range embeddedIPv4(a) {
			if why := refusedAddr(v4, allowPrivate); why != "" {
				return fmt.Sprintf("address %s embeds a refused IPv4 address: %s", a, why)
			}
		}
	}
	return ""
}

// embeddedIPv4 returns the IPv4 addresses an IPv6 address carries in the
// transition forms that reach them: IPv4-compatible (::a.b.c.d), SIIT
// translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96 and 64:ff9b:1::/48),
// 6to4 (2002::/16), Teredo (2001::/32, server and de-obfuscated client) and
// ISATAP interface identifiers (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d).
func embeddedIPv4(a netip.Addr) []netip.Addr {
	b := a.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{b[i], b[i+1], b[i+2], b[i+3]}) }
	zero := func(from, to int) bool {
		for i := from; i < to; i++ {
			if b[i] != 0 {
				return false
			}
		}
		return true
	}
	var out []netip.Addr
	switch {
	case zero(0, 12) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback(): // ::a.b.c.d
		out = append(out, v4(12))
	case zero(0, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0: // ::ffff:0:a.b.c.d
		out = append(out, v4(12))
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b: // 64:ff9b::/96, 64:ff9b:1::/48
		out = append(out, v4(12))
	case b[0] == 0x20 && b[1] == 0x02: // 2002:a.b.c.d::/48
		out = append(out, v4(2))
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0: // Teredo
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		out = append(out, v4(4), netip.AddrFrom4(client))
	}
	if (b[8]|0x02) == 0x02 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe { // ISATAP
		out = append(out, v4(12))
	}
	return out
}
