// go_atomic_counter_fixed: two goroutines on two Ps increment a counter with one atomic.AddInt64
// each (a `lock xadd`): no increment can be lost, whatever the schedule. The twin of
// go_atomic_counter_buggy.go.
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
	atomic.AddInt64(&counter, 1)
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
