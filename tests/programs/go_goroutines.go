// Goroutines on two Ps (runtime.GOMAXPROCS(2)): workers adding under a sync.Mutex and joined
// with a sync.WaitGroup; a three-stage pipeline over unbuffered and buffered channels; a
// goroutine that time.Sleeps before it answers; a select over two channels until both close.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

func main() {
	runtime.GOMAXPROCS(2)
	ok := true

	// Workers adding under a mutex, joined with a WaitGroup.
	var mu sync.Mutex
	var wg sync.WaitGroup
	counter := 0
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				mu.Lock()
				counter++
				mu.Unlock()
				if i%500 == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("mutex: 8 goroutines counted to %d\n", counter)
	ok = ok && counter == 16000

	// A pipeline: generate -> square (unbuffered) -> sum (buffered).
	numbers := make(chan int)
	squares := make(chan int, 16)
	go func() {
		for i := 1; i <= 1000; i++ {
			numbers <- i
		}
		close(numbers)
	}()
	go func() {
		for n := range numbers {
			squares <- n * n
		}
		close(squares)
	}()
	sum := 0
	for s := range squares {
		sum += s
	}
	fmt.Printf("pipeline: sum of squares 1..1000 = %d\n", sum)
	ok = ok && sum == 333833500

	// A sleeper: the receive blocks until the goroutine wakes.
	answer := make(chan string)
	go func() {
		time.Sleep(20 * time.Millisecond)
		answer <- "woke up"
	}()
	fmt.Printf("sleeper: %s\n", <-answer)

	// select over two producers until both channels are closed.
	evens, odds := make(chan int), make(chan int)
	for _, start := range []int{0, 1} {
		out := evens
		if start == 1 {
			out = odds
		}
		go func(start int, out chan<- int) {
			for i := start; i < 200; i += 2 {
				out <- i
			}
			close(out)
		}(start, out)
	}
	evenSum, oddSum := 0, 0
	for evens != nil || odds != nil {
		select {
		case v, more := <-evens:
			if !more {
				evens = nil
			} else {
				evenSum += v
			}
		case v, more := <-odds:
			if !more {
				odds = nil
			} else {
				oddSum += v
			}
		}
	}
	fmt.Printf("select: evens %d, odds %d\n", evenSum, oddSum)
	ok = ok && evenSum == 9900 && oddSum == 10000

	if !ok {
		os.Exit(1)
	}
}
