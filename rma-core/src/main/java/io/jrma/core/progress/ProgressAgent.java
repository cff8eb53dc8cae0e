package io.jrma.core.progress;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.wire.Batch;
import io.jrma.core.wire.BatchReceiver;
import io.jrma.core.wire.PacketHeader;
import io.jrma.spi.transport.Transport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

/**
 * The JVM's progress agent (one per job per JVM): delivers batches of packets that arrived for ranks of this
 * JVM to the window that owns them, lets receivers continue blocked work, and drives the transports.
 * {@link #doWork()} never blocks and returns how much it did, so it can run on a dedicated thread or inside
 * a waiting caller's loop ({@link #tryProgress()}): at most one thread runs it at any time.
 *
 * <p>Threads: {@link #deliver} and {@link #register} from any thread; {@code doWork} from whichever thread
 * holds the run flag.
 */
public final class ProgressAgent implements Agent {
    private final ManyToOneConcurrentLinkedQueue<Batch> inbox = new ManyToOneConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile Int2ObjectHashMap<BatchReceiver> receivers = new Int2ObjectHashMap<>();
    private volatile BatchReceiver[] pollables = new BatchReceiver[0];
    private volatile Transport[] transports = new Transport[0];
    private volatile BatchReceiver unknownWindow;
    private final AtomicLong batchesDelivered = new AtomicLong();
    private final AtomicLong dutyCycles = new AtomicLong();
    private final AtomicLong batchesDropped = new AtomicLong();
    private volatile RuntimeException lastError;
    /** Why the last batch was dropped for bad input (no such window, no packet): its error class and reason. */
    private volatile RmaException lastRejection;

    /** Registers the receiver of batches addressed to window {@code windowId}. */
    public synchronized void register(int windowId, BatchReceiver receiver) {
        Int2ObjectHashMap<BatchReceiver> copy = new Int2ObjectHashMap<>(receivers);
        copy.put(windowId, receiver);
        receivers = copy; // volatile store publishes the new map to the agent
        BatchReceiver[] p = Arrays.copyOf(pollables, pollables.length + 1);
        p[p.length - 1] = receiver;
        pollables = p;
    }

    /** Removes a window's receiver (after the window is freed and drained). */
    public synchronized void unregister(int windowId) {
        Int2ObjectHashMap<BatchReceiver> copy = new Int2ObjectHashMap<>(receivers);
        BatchReceiver r = copy.remove(windowId);
        receivers = copy;
        if (r != null) {
            List<BatchReceiver> list = new ArrayList<>(Arrays.asList(pollables));
            list.remove(r);
            pollables = list.toArray(new BatchReceiver[0]);
        }
    }

    /** Who gets batches naming an unknown window (it answers with an error reply); may be null. */
    public void unknownWindowReceiver(BatchReceiver r) {
        this.unknownWindow = r;
    }

    public synchronized void addTransport(Transport t) {
        Transport[] a = Arrays.copyOf(transports, transports.length + 1);
        a[a.length - 1] = t;
        transports = a;
    }

    private final AtomicInteger spinningCallers = new AtomicInteger();
    /** Threads parked in the library waiting for something progress may bring (a reply, a packet). */
    private final Set<Thread> parkedWaiters = ConcurrentHashMap.newKeySet();
    private final AtomicInteger parkedCount = new AtomicInteger();

    /**
     * Registers the calling thread as parked until progress does work: the thread must check its condition
     * again after this call and before it parks, and call {@link #unparked} after.
     */
    public void parking() {
        parkedWaiters.add(Thread.currentThread());
        parkedCount.incrementAndGet();
    }

    /** Ends {@link #parking}. */
    public void unparked() {
        parkedWaiters.remove(Thread.currentThread());
        parkedCount.decrementAndGet();
    }

    /** Wakes every parked waiter after a duty cycle that did work (it may have completed what they wait for). */
    private void wakeParked() {
        if (parkedCount.get() > 0) {
            for (Thread t : parkedWaiters) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Threads waiting in the library that are polling (driving this agent) right now. */
    public AtomicInteger spinningCallers() {
        return spinningCallers;
    }

    /** Set by callers that drive progress, cleared by the progress thread when it asks {@link #callersActive}. */
    private volatile boolean callerPolled;
    /** A waiter stopped polling to park: the progress thread should watch the transports at once. */
    private volatile boolean handover;

    /**
     * A caller drove progress (a wait that polled ended; a client polling its own memory called
     * {@code Jrma.progress}). Any thread; stores only when the flag is clear, so pollers in a loop only read it.
     */
    public void callerPolled() {
        if (!callerPolled) {
            callerPolled = true;
        }
    }

    /** A waiter stopped polling to park: nobody may call the library soon, the progress thread takes over. */
    public void pollingStopped() {
        handover = true;
    }

    /**
     * Whether ranks drive progress themselves: a waiter polls now, or callers polled since the progress
     * thread last asked (a benchmark loop, a ping-pong: the next wait comes within microseconds). Only the
     * progress thread calls this, about once per park of {@code Job}'s callers-active interval.
     */
    public boolean callersActive() {
        boolean polled = callerPolled;
        if (polled) {
            callerPolled = false;
        }
        if (handover) {
            handover = false;
            polled = false;
        }
        return polled || spinningCallers.get() > 0;
    }

    private volatile boolean sleeping;
    private volatile Transport sleeper;

    /** Whether the progress thread is (about to be) asleep in {@code t}'s {@link Transport#awaitInput}. */
    public boolean sleepingIn(Transport t) {
        return sleeping && sleeper == t;
    }

    /** Called by a transport when a batch has arrived for a rank of this JVM. Any thread. */
    public void deliver(Batch batch) {
        inbox.offer(batch);
        if (sleeping) { // the idle progress thread is blocked in a transport's selector: wake it
            Transport t = sleeper;
            if (t != null) {
                t.wakeup();
            }
        }
    }

    /**
     * Idles the calling (progress) thread in {@code t}'s selector for up to {@code timeoutNs}, unless a batch
     * is already waiting; {@link #deliver} wakes it.
     */
    public void sleepIn(Transport t, long timeoutNs) {
        sleeper = t;
        sleeping = true; // before the inbox check: a deliver after it sees sleeping and wakes us
        try {
            if (inbox.isEmpty()) {
                t.awaitInput(timeoutNs);
            }
        } finally {
            sleeping = false;
        }
    }

    /** Whether some thread runs a duty cycle now. Any thread. */
    public boolean busy() {
        return running.get();
    }

    /** Runs one duty cycle if no other thread is running one; returns work done (0 if busy or idle). */
    public int tryProgress() {
        // test before test-and-set: spinning waiters only read the flag's cache line while another runs
        if (running.get() || !running.compareAndSet(false, true)) {
            return 0;
        }
        int work;
        try {
            work = doWork();
        } finally {
            running.set(false);
        }
        if (work > 0) {
            wakeParked();
        }
        return work;
    }

    /**
     * Whether a receiver has work that arrived outside the transports ({@link BatchReceiver#hasInput}), asked by
     * the idle progress thread after it announced its sleep. Takes the duty cycle's flag for the look (receivers
     * may be freed only between cycles, {@link #awaitCycleEnd}); false when another thread runs a cycle (that one
     * finds the work).
     */
    public boolean receiversHaveInput() {
        if (running.get() || !running.compareAndSet(false, true)) {
            return false;
        }
        try {
            for (BatchReceiver r : pollables) {
                if (r.hasInput()) {
                    return true;
                }
            }
            return false;
        } finally {
            running.set(false);
        }
    }

    /**
     * Returns once no duty cycle that was running when it was called is still running, so that receivers unregistered
     * (or state withdrawn from them) before the call are no longer touched: a window frees memory the agent may read
     * only after this. Any thread but one inside a duty cycle.
     */
    public void awaitCycleEnd() {
        if (!running.get()) {
            return;
        }
        long c = dutyCycles.get();
        while (running.get() && dutyCycles.get() == c) {
            Thread.onSpinWait();
        }
    }

    @Override
    public int doWork() {
        int work = 0;
        for (Transport t : transports) {
            work += t.progress();
        }
        Batch b;
        int limit = 64;
        while (limit-- > 0 && (b = inbox.poll()) != null) {
            dispatch(b);
            work++;
        }
        for (BatchReceiver r : pollables) {
            work += r.poll();
        }
        dutyCycles.lazySet(dutyCycles.get() + 1);
        return work;
    }

    /**
     * Hands a batch to its window's receiver now, bypassing the inbox: for a transport whose {@code progress()}
     * (called in this agent's duty cycle) delivers packets where they lie and must know at once whether the
     * receiver kept them. Only from the thread running the duty cycle.
     */
    public void dispatchNow(Batch b) {
        assert running.get() : "dispatchNow outside the duty cycle";
        dispatch(b);
    }

    private void dispatch(Batch b) {
        batchesDelivered.lazySet(batchesDelivered.get() + 1);
        int first = b.count() == 0 ? -1 : b.offsetAt(0);
        if (first < 0 || (long) first + PacketHeader.HEADER_LENGTH > b.buffer().capacity()) {
            batchesDropped.incrementAndGet();
            lastRejection = new RmaException(ErrorClass.ERR_INTERN, "a batch without a whole packet "
                    + "header: dropped");
            b.markConsumed();
            return;
        }
        BatchReceiver r = receivers.get(PacketHeader.windowId(b.buffer(), first));
        if (r == null) {
            r = unknownWindow;
        }
        if (r == null) {
            batchesDropped.incrementAndGet();
            lastRejection = new RmaException(ErrorClass.ERR_WIN, "a batch from rank " + b.srcRank()
                    + " names window " + PacketHeader.windowId(b.buffer(), first)
                    + ", which no rank of this JVM has: dropped");
            b.markConsumed();
            return;
        }
        try {
            r.onBatch(b);
        } catch (RuntimeException e) {
            // a receiver validates everything; anything escaping is a bug, but it must not stop the agent
            batchesDropped.incrementAndGet();
            lastError = e;
            b.markConsumed();
        }
    }

    /**
     * Asks the receiver of the window a packet names where its payload may be written before delivery
     * ({@link BatchReceiver#placement}); null if none. Only from the thread running the duty cycle.
     */
    public ByteBuffer placement(DirectBuffer header, int at) {
        BatchReceiver r = receivers.get(PacketHeader.windowId(header, at));
        if (r == null) {
            return null;
        }
        try {
            return r.placement(header, at);
        } catch (RuntimeException e) {
            lastError = e; // a bug: the packet takes the ordinary way, where it is validated again
            return null;
        }
    }

    /** Batches dropped: empty, naming no known window, or failing in their receiver. */
    public long batchesDropped() {
        return batchesDropped.get();
    }

    /** The last exception that escaped a receiver (a bug to report), or null. */
    public RmaException lastRejection() {
        return lastRejection;
    }

    /** The last exception a receiver let escape (a bug), or null. */
    public RuntimeException lastError() {
        return lastError;
    }

    /** Batches delivered to windows of this JVM so far. */
    public long batchesDelivered() {
        return batchesDelivered.get();
    }

    /** Duty cycles run so far. */
    public long dutyCycles() {
        return dutyCycles.get();
    }

    @Override
    public String roleName() {
        return "jrma-progress";
    }
}
