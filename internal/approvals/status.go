package approvals

import (
	"errors"
	"net/http"
)

// StatusOf is the HTTP status that answers a Decide error, on every route
// that decides (serve's POST /approvals/{id}, the page's): 404 when no such
// approval waits, 403 when the decider is not among its approvers, 503 when
// the Redis server sharing the approvals did not answer or serve is
// stopping, 409 otherwise (decided already, another call's digest).
func StatusOf(err error) int {
	switch {
	case errors.Is(err, ErrNotPending):
		return http.StatusNotFound
	case errors.Is(err, ErrNotApprover):
		return http.StatusForbidden
	case errors.Is(err, ErrUnavailable), errors.Is(err, ErrClosed):
		return http.StatusServiceUnavailable
	}
	return http.StatusConflict
}
