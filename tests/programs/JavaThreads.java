// A JVM program: a thread pool, synchronized counters, a CountDownLatch and a blocking queue.
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicLong;

public class JavaThreads {
  private static long synchronizedCounter = 0;

  private static synchronized void increment() {
    synchronizedCounter++;
  }

  public static void main(String[] args) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch done = new CountDownLatch(8);
    AtomicLong atomicSum = new AtomicLong();
    for (int task = 0; task < 8; task++) {
      final int base = task * 1000;
      pool.submit(() -> {
        for (int i = 1; i <= 1000; i++) {
          increment();
          atomicSum.addAndGet(base + i);
        }
        done.countDown();
      });
    }
    done.await();
    BlockingQueue<Integer> queue = new ArrayBlockingQueue<>(2);
    Thread producer = new Thread(() -> {
      try {
        for (int i = 1; i <= 100; i++) queue.put(i);
        queue.put(-1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    producer.start();
    long consumed = 0;
    for (int item = queue.take(); item != -1; item = queue.take()) consumed += item;
    producer.join();
    pool.shutdown();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    System.out.println("counter " + synchronizedCounter + ", sum " + atomicSum.get() + ", consumed " + consumed);
    System.exit(synchronizedCounter == 8000 && consumed == 5050 ? 0 : 1);
  }
}
