// go_bank: a Go test binary (go test -c) for `chess-trace test`. TestLostUpdate holds the one
// atomicity violation: the withdrawal reads the balance under the lock, yields (runtime.Gosched,
// and with two Ps a point where another thread may run) and writes it back under the lock again,
// so a deposit made in between is lost. The other tests are correct under every schedule.
package bank

import (
	"runtime"
	"sync"
	"testing"
	"time"
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

func (a *account) WithdrawInTwoSteps(amount int64) {
	current := a.Balance()
	runtime.Gosched() // the window: the lock is free, yet `current` is used as if it still held
	if current >= amount {
		a.lock.Lock()
		a.balance = current - amount
		a.lock.Unlock()
	}
}

// runInGoroutines starts each action 10 ms after the one before: natively each has long finished
// by then, and only a schedule that preempts one inside its window interleaves them. Two Ps, so
// the goroutines can run on two threads, which is what chess-trace schedules.
func runInGoroutines(actions ...func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var done sync.WaitGroup
	for _, action := range actions {
		done.Add(1)
		go func(action func()) {
			defer done.Done()
			action()
		}(action)
		time.Sleep(10 * time.Millisecond)
	}
	done.Wait()
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
	runInGoroutines(func() { a.WithdrawInTwoSteps(30) }, func() { a.Deposit(50) })
	if balance := a.Balance(); balance != 120 {
		t.Fatalf("balance %d, expected 120: an update was lost", balance)
	}
}
