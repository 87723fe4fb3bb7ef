// go_atomic_counter_buggy: a lost update through sync/atomic, read with one Load and written back
// with one Store by two goroutines: no lock, no channel, no syscall in the window.
//
// Schedule that exposes it (1 preemption): the first goroutine loads 0 and is preempted at its
// store (atomic.StoreInt64 is an `xchg`); the second loads 0 and stores 1; the first stores 1.
// main finds 1 and exits with status 1.
//
// Goroutines that share one OS thread cannot be interleaved from outside the process: chess-trace
// schedules threads, and Go's own scheduler decides which goroutine a thread runs. The program
// therefore asks for two Ps (runtime.GOMAXPROCS(2)), so its goroutines can run on two threads;
// whether they do in a serialized run is Go's scheduler's choice (one thread may run both back to
// back), so the preemptions the search needs may include switches inside the runtime.
//
// Fixed twin: go_atomic_counter_fixed.go (one atomic.AddInt64).
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

var counter int64

func increment(done *sync.WaitGroup) {
	defer done.Done()
	seen := atomic.LoadInt64(&counter)
	// The window: another goroutine may load the same value here.
	atomic.StoreInt64(&counter, seen+1)
}

func main() {
	runtime.GOMAXPROCS(2)
	var done sync.WaitGroup
	done.Add(2)
	go increment(&done)
	go increment(&done)
	done.Wait()
	if value := atomic.LoadInt64(&counter); value != 2 {
		fmt.Fprintf(os.Stderr, "an increment was lost: counter %d\n", value)
		os.Exit(1)
	}
	fmt.Println("counter: 2")
}
