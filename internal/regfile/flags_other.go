//go:build !unix

package regfile

// OpenFlags: opening does not block on special files here.
const OpenFlags = 0
