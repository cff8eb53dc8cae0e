package io.jrma.transport.ucx;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The other JVM of {@link UcxAcrossJvmsTest}: opens a worker over {@code args[0]} (UCX_TLS), registers a window of
 * 4 KiB, prints its worker address, remote key and base address, connects to the address read from stdin, then
 * waits for the origin's tagged message and answers it with a tagged message holding the window's first long and
 * the sum of its next 1000 bytes, as it sees them. The window's memory is touched by nobody in this JVM.
 */
public final class UcxPeerMain {
    static final long TAG = 0x55_0000_0000L;
    static final long MASK = 0xFF_0000_0000L;
    static final int WINDOW = 4096;
    static final int DATA = 1000;
    static final long TIMEOUT_NS = 30_000_000_000L;

    private UcxPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        Base64.Encoder b64 = Base64.getEncoder();
        try (UcxWorker w = UcxWorker.open(args[0]); Memory window = new Memory(WINDOW); Memory msg = new Memory(16)) {
            window.clear();
            UcxWorker.Registration reg = w.register(Pointer.nativeValue(window), WINDOW);
            System.out.println("PEER " + b64.encodeToString(w.address()) + " " + b64.encodeToString(reg.key()) + " "
                    + reg.address());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            long ep = w.connect(Base64.getDecoder().decode(in.readLine().trim()));
            long deadline = System.nanoTime() + TIMEOUT_NS;
            long m;
            while ((m = w.probe(TAG, MASK)) == 0) {
                w.progress();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no message from the origin");
                }
            }
            w.await(w.receive(m, Pointer.nativeValue(msg), w.probedLength()), TIMEOUT_NS);
            long sum = 0;
            for (int i = 0; i < DATA; i++) {
                sum += window.getByte(8 + i) & 0xFF;
            }
            msg.setLong(0, window.getLong(0));
            msg.setLong(8, sum);
            w.await(w.send(ep, Pointer.nativeValue(msg), 16, TAG), TIMEOUT_NS);
            w.await(w.flush(ep), TIMEOUT_NS);
            System.out.println("DONE");
        }
    }
}
