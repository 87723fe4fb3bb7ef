// go_bank: a Go test binary (go test -c) for `chess-trace test`. TestLostUpdate holds the one
// atomicity violation: a withdrawal and a deposit each read the balance under the lock and write
// it back under the lock again, so whatever the other wrote in between is lost (1 preemption: one
// goroutine's thread stopped between its two critical sections while the other's runs). The other
// tests are correct under every schedule.
//
// The search schedules threads, and Go's scheduler decides which goroutine a thread runs: the
// goroutines get two Ps to run on two threads, and the search needs about 2,400 executions (40 s)
// to reach the schedule, past the runtime's own choices (--max-executions 5000 finds it).
// Natively the deposit is prepared (0.2 ms of computation) before it is made, by which time the
// withdrawal's window has long closed: 0 failures in 500 runs.
package bank

import (
	"runtime"
	"sync"
	"testing"
)

type account struct {
	lock    sync.Mutex
	balance int64 // guarded by lock
}

func (a *account) Balance() int64 {
	a.lock.Lock()
	defer a.lock.Unlock()
	return a.balance
}

func (a *account) Deposit(amount int64) {
	a.lock.Lock()
	defer a.lock.Unlock()
	a.balance += amount
}

func (a *account) Withdraw(amount int64) {
	a.lock.Lock()
	defer a.lock.Unlock()
	if a.balance >= amount {
		a.balance -= amount
	}
}

// The bug: the balance is read in one critical section and written back in another; between them
// the lock is free, yet `current` is used as if it still held.
func (a *account) DepositInTwoSteps(amount int64) {
	current := a.Balance()
	a.lock.Lock()
	a.balance = current + amount
	a.lock.Unlock()
}

func (a *account) WithdrawInTwoSteps(amount int64) {
	current := a.Balance()
	if current >= amount {
		a.lock.Lock()
		a.balance = current - amount
		a.lock.Unlock()
	}
}

// runInGoroutines runs the actions in goroutines of their own and waits for them. Two Ps, so the
// goroutines can run on two threads, which is what chess-trace schedules.
func runInGoroutines(actions ...func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var done sync.WaitGroup
	for _, action := range actions {
		done.Add(1)
		go func(action func()) {
			defer done.Done()
			action()
		}(action)
	}
	done.Wait()
}

var checksum int64

// prepare computes for a while (about 0.2 ms, no syscall, no lock: nothing the search can stop at)
// before it hands back amount.
func prepare(amount int64) int64 {
	for i := int64(0); i < 200000; i++ {
		checksum = checksum*31 + i
	}
	return amount
}

func TestOpensWithItsBalance(t *testing.T) {
	if balance := (&account{balance: 100}).Balance(); balance != 100 {
		t.Fatalf("balance %d, expected 100", balance)
	}
}

func TestDepositAndWithdraw(t *testing.T) {
	a := &account{balance: 100}
	runInGoroutines(func() { a.Deposit(50) }, func() { a.Withdraw(30) })
	if balance := a.Balance(); balance != 120 {
		t.Fatalf("balance %d, expected 120", balance)
	}
}

func TestLostUpdate(t *testing.T) {
	a := &account{balance: 100}
	runInGoroutines(func() { a.WithdrawInTwoSteps(30) }, func() { a.DepositInTwoSteps(prepare(50)) })
	if balance := a.Balance(); balance != 120 {
		t.Fatalf("balance %d, expected 120: an update was lost", balance)
	}
}
