package transports

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/luahook/luahook"
)

// Resolver looks up the addresses of a host name. *net.Resolver implements it;
// tests and hosts with their own DNS inject another.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// pinnedDialer dials an HTTP hook's one admitted host. It resolves the name
// itself, refuses the host if any answer is refused, and connects to the very
// addresses it checked, so that DNS rebinding has no window between the check
// and the connection. TLS still verifies the host name: the transport
// handshakes on the connection with the URL's host as ServerName.
type pinnedDialer struct {
	host         string // the admitted host, lower case, without brackets
	cleartext    bool   // http:// to the local machine: loopback addresses only, no DNS
	allowPrivate bool
	resolver     Resolver
	dialer       net.Dialer
}

func (d *pinnedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(host, d.host) {
		return nil, luahook.Failf(luahook.FailRejected, "refusing to dial %q: the hook may only reach %q", host, d.host)
	}
	addrs, err := d.addresses(ctx, strings.ToLower(host))
	if err != nil {
		return nil, err
	}
	var first error
	for _, a := range addrs {
		c, err := d.dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// addresses returns the checked addresses to try for host, in order.
func (d *pinnedDialer) addresses(ctx context.Context, host string) ([]netip.Addr, error) {
	loopback := []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}
	if a, err := netip.ParseAddr(host); err == nil {
		if d.cleartext {
			if a.Unmap() != loopback[0] && a != loopback[1] {
				return nil, luahook.Failf(luahook.FailRejected, "cleartext http:// may only reach 127.0.0.1 or [::1], not %s", a)
			}
		} else if why := refusedAddr(a, d.allowPrivate); why != "" {
			return nil, luahook.Failf(luahook.FailRejected, "%s", why)
		}
		return []netip.Addr{a}, nil
	}
	if localName(host) {
		if !d.cleartext && !d.allowPrivate {
			return nil, luahook.Failf(luahook.FailRejected, "host %q names the local machine", host)
		}
		return loopback, nil // never asked of DNS: /etc/hosts could point it anywhere
	}
	if d.cleartext {
		return nil, luahook.Failf(luahook.FailRejected, "cleartext http:// may only reach the local machine, not %q", host)
	}
	answers, err := d.resolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, &luahook.Failure{Kind: luahook.FailError, Message: fmt.Sprintf("resolving %q: %v", host, err), Err: err}
	}
	if len(answers) == 0 {
		return nil, luahook.Failf(luahook.FailError, "resolving %q: no addresses", host)
	}
	addrs := make([]netip.Addr, 0, len(answers))
	for _, ans := range answers {
		a, ok := netip.AddrFromSlice(ans.IP)
		if !ok {
			return nil, luahook.Failf(luahook.FailError, "resolving %q: malformed answer %v", host, ans.IP)
		}
		a = a.Unmap()
		if why := refusedAddr(a, d.allowPrivate); why != "" {
			return nil, luahook.Failf(luahook.FailRejected, "host %q resolves to a refused address: %s", host, why)
		}
		addrs = append(addrs, a)
	}
	return addrs, nil
}
