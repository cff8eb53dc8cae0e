package io.jrma.bench.micro;

import io.jrma.Info;
import io.jrma.Jrma;
import io.jrma.Win;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A 2-rank job of threads of this JVM for JMH states: rank 0 hands its window to the benchmark thread (any
 * thread may issue on a rank's window and, when the rank itself makes no synchronization calls meanwhile, open
 * and close its epochs); rank 1 waits in a barrier (passive target) until {@link #close}.
 */
final class PairJob implements AutoCloseable {
    private final CountDownLatch finish = new CountDownLatch(1);
    private final Thread thread;
    private volatile Throwable failure;
    final Win win;

    PairJob(String path, long bytes, Info info) throws Exception {
        CompletableFuture<Win> ready = new CompletableFuture<>();
        thread = new Thread(() -> {
            try {
                Jrma.job(2).param("jrma.path", path).run(world -> {
                    Win w = Win.allocate(world, bytes, 8, info);
                    if (world.rank() == 0) {
                        ready.complete(w);
                        finish.await();
                    }
                    world.barrier();
                    w.free();
                });
            } catch (Throwable t) {
                failure = t;
                ready.completeExceptionally(t);
            }
        }, "jrma-micro-job");
        thread.setDaemon(true);
        thread.start();
        win = ready.get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        finish.countDown();
        thread.join(Duration.ofSeconds(30).toMillis());
        if (thread.isAlive()) {
            throw new IllegalStateException("the benchmark's jrma job did not end within 30 s");
        }
        if (failure != null) {
            throw new IllegalStateException("the benchmark's jrma job failed", failure);
        }
    }
}
