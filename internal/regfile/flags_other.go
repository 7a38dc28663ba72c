//go:build !unix

package regfile

// openFlags: opening does not block on special files here.
const openFlags = 0
