// Package bench holds the benchmarks that measure luahook as a whole: what a
// hook costs through the engine, how the cost grows with the number of hooks
// and the size of the payload, the serve endpoint's throughput, and memory per
// state and per file. Run them all, with the ratios the targets are stated
// in, with:
//
//	go run ./internal/bench/report
package bench
