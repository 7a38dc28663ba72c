// Package proctree starts a child in a process group of its own and kills
// that group: the whole tree a child spawns, grandchildren included, ends
// with it. Command hooks (transports) and host.git use it.
package proctree
